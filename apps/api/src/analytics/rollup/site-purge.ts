// The analytics rows of deleted sites, purged. The analytics tables keep no foreign key to `sites` (distributed on
// Citus), so a deleted site's raw rows stayed until their partitions were dropped, and its rollups, per-day store and
// imported history for good. `deleted_sites` names each deleted site for a week: rows of it still on their way (a
// write buffer, a spill file read at the next start) are purged as they land.
import { type Orm, SITE_DATA_TABLES } from '@us/db';
import { type JobRunOptions, withJobLock } from '../../core/job-lock.ts';
import { type Conn, deleteOldestDays, newestDay } from './day-deletes.ts';

/** Days a deleted site's id is kept, and its rows purged again each run. */
const KEPT_DAYS = 7;
/** Days of a site's rows one transaction deletes at most (a week of raw rows, as retention's). */
const PURGE_CHUNK_DAYS = 7;

export interface SitePurgeRun {
  ran: boolean;
  sites: number;
  rows: number;
}

/**
 * Deletes every analytics row of the sites in `deleted_sites` (and, in a run over every site, of site ids found in
 * the analytics tables that no site has: deleted before the list existed), oldest days first, a week of days per
 * transaction; forgets a site a week after its deletion. Once across nodes.
 */
export async function purgeDeletedSites(orm: Orm, opts: JobRunOptions & { chunkDays?: number } = {}): Promise<SitePurgeRun> {
  const res = await withJobLock(
    orm,
    'sitePurge',
    async () => {
      const conn = orm.em.getConnection();
      const now = opts.now ?? new Date();
      if (!opts.siteIds) await listOrphans(conn);
      if (opts.siteIds && !opts.siteIds.length) return { sites: 0, rows: 0 };
      const gone = await conn.execute<{ site_id: string; deleted_at: Date }[]>(
        `select d.site_id::text as site_id, d.deleted_at from deleted_sites d
          where not exists (select 1 from sites s where s.id = d.site_id)
          ${opts.siteIds ? `and d.site_id in (${opts.siteIds.map(() => '?::uuid').join(', ')})` : ''}
          order by d.deleted_at`,
        opts.siteIds ?? [],
        'all',
      );
      let rows = 0;
      for (const g of gone) {
        try {
          rows += await purgeSite(conn, g.site_id, opts.chunkDays ?? PURGE_CHUNK_DAYS);
          if (now.getTime() - new Date(g.deleted_at).getTime() > KEPT_DAYS * 86_400_000) {
            await conn.execute('delete from deleted_sites where site_id = ?::uuid', [g.site_id]);
          }
        } catch (e) {
          opts.logger?.error(`site purge: site ${g.site_id} failed`, e);
        }
      }
      if (rows) opts.logger?.warn(`site purge: deleted ${rows} rows of ${gone.length} deleted sites`);
      return { sites: gone.length, rows };
    },
    { wait: opts.wait },
  );
  return res.ran ? { ran: true, ...res.result } : { ran: false, sites: 0, rows: 0 };
}

/**
 * Every row of one site in every site-data table, each table's oldest days first, `chunkDays` of days holding rows a
 * transaction: the days between a table's rows (years of rollups against 92 days of raw rows) cost nothing. Answers
 * the rows deleted.
 */
async function purgeSite(conn: Conn, siteId: string, chunkDays: number): Promise<number> {
  let deleted = 0;
  for (const table of SITE_DATA_TABLES) {
    const last = await newestDay(conn, [table], siteId);
    if (last) deleted += await deleteOldestDays(conn, siteId, [{ name: table, counted: true }], last, chunkDays);
  }
  return deleted;
}

/**
 * Site ids with rolled-up or arrived days that no site has (deleted before `deleted_sites` existed) are added to it.
 * Two small tables (a row per site and day) stand for all: every site with rows has arrivals or rollups of them.
 */
async function listOrphans(conn: Conn): Promise<void> {
  // Materialised: on Citus the distributed tables are read first, and the ids compared with `sites` on the coordinator.
  await conn.execute(
    `with seen as materialized (
       select site_id from day_arrivals group by site_id
       union select site_id from rollup_days group by site_id)
     insert into deleted_sites (site_id)
     select seen.site_id from seen where not exists (select 1 from sites s where s.id = seen.site_id)
     on conflict do nothing`,
  );
}
