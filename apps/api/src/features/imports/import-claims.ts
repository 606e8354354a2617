// Which import a run of the import job takes next, and when it gives the next one its turn: a site's imports
// one at a time across nodes (a later import replaces the earlier one's days), and turns a file at a time,
// workspace by workspace (docs/product/imports.md).
import type { PgPool } from '@us/db';
import { jobLockKey } from '../../core/job-lock.ts';
import { inTransaction, withClient } from './import-files.ts';

/** A running import whose node has written nothing for this long is taken over. */
export const STALE_MS = 120_000;

/**
 * An import that may be claimed: due (queued, or running on a node that stopped writing), among `$2`'s sites
 * when given, and first of its site: the site's running import, then its oldest queued one.
 */
const CLAIMABLE = `(i.status = 'queued' or (i.status = 'running' and i.heartbeat_at < now() - make_interval(secs => $1)))
  and ($2::uuid[] is null or i.site_id = any($2::uuid[]))
  and not exists (
    select 1 from imports e
     where e.site_id = i.site_id and e.id <> i.id and e.status in ('queued', 'running')
       and ((e.status <> 'running')::int, e.created_at, e.id) < ((i.status <> 'running')::int, i.created_at, i.id))`;

/**
 * Claims the next import due whose site runs no other one (CLAIMABLE). Turns go workspace by workspace: the
 * workspace whose last turn is oldest (or that had none) first, then its import whose last turn is oldest, so
 * one workspace's many imports do not hold back another's. Claims are taken one at a time across nodes (a
 * transaction lock), so no two see the same site free.
 */
export async function claimNext(pool: PgPool, siteIds: string[] | undefined): Promise<string | undefined> {
  return inTransaction(pool, async (db) => {
    await db.query('select pg_advisory_xact_lock($1, $2)', jobLockKey('importClaims'));
    const { rows } = await db.query<{ id: string }>(
      `update imports set status = 'running', started_at = coalesce(started_at, now()), heartbeat_at = now(), turn_at = now()
       where id = (select i.id from imports i join sites s on s.id = i.site_id
                   where ${CLAIMABLE}
                   order by (select max(t.turn_at) from imports t join sites ts on ts.id = t.site_id
                              where ts.workspace_id = s.workspace_id) nulls first,
                            i.turn_at nulls first, i.created_at, i.id
                   limit 1 for update of i skip locked)
       returning id`,
      [STALE_MS / 1000, siteIds ?? null],
    );
    return rows[0]?.id;
  });
}

/** Whether an import other than this one may be claimed now: the job's run then ends its turn at a file's end. */
export async function othersDue(pool: PgPool, importId: string, siteIds: string[] | undefined): Promise<boolean> {
  const { rows } = await withClient(pool, (db) =>
    db.query(`select 1 from imports i where i.id <> $3 and ${CLAIMABLE} limit 1`, [STALE_MS / 1000, siteIds ?? null, importId]),
  );
  return rows.length > 0;
}

/**
 * Back to the queue after a turn, its checkpoint at the file just read (unless it was deleted meanwhile, or another
 * run took it over: `claim` is the turn's own).
 */
export async function endTurn(pool: PgPool, importId: string, claim: string) {
  await withClient(pool, (db) =>
    db.query(`update imports set status = 'queued' where id = $1 and status = 'running' and claim = $2::uuid`, [importId, claim]),
  );
}
