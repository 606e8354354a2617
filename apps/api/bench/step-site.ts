// The mixed section's site for quarter-hour rollup steps: a copy of one busy day of the stats site (its
// pageviews, events and requests, and the leave reports of that day and the two after, which a rollup of the
// day reads), made once and kept in the bench database. Stepping the stats site's own day instead rolled it
// back to noon and left the rest of it raw under the dashboard's reads, a state production never has: the
// quarter-hour job keeps a day rolled up to within minutes of the present, and a past day closed.
import type { Orm } from '@us/db';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { addDays } from '../scripts/seed/generate.ts';

/** The raw tables a site-day's rollup reads, and the days of each copied (from the day on). */
const COPIED = { pageviews: 0, events: 0, requests: 0, page_leaves: 2 } as const;

/**
 * The step site and its day: a copy of `day` of the stats site `statsSiteId`, made now unless the step site
 * holds that day already. A day copied before from stats data since regenerated is copied again.
 */
export async function ensureStepSite(orm: Orm, workspaceId: string, statsSiteId: string, day: string, log: (s: string) => void) {
  const { site } = await ensureSite(orm.em.fork(), {
    workspaceId,
    name: 'Rollup steps bench',
    hostname: 'steps.bench.example',
    timezone: 'UTC',
  });
  const conn = orm.em.getConnection();
  const count = async (siteId: string) => {
    const [r] = await conn.execute<{ n: string }[]>(
      'select count(*) as n from pageviews where site_id = ? and day = ?',
      [siteId, day],
      'all',
    );
    return Number(r?.n ?? 0);
  };
  const want = await count(statsSiteId);
  if (want > 0 && (await count(site.id)) === want) return { siteId: site.id, day, pageviews: want };
  const t = performance.now();
  await conn.transactional(async (trx) => {
    const run = (sql: string, params: unknown[]) => conn.execute(sql, params, 'run', trx);
    // The step site holds one copied day at a time, with no rollup of it yet.
    for (const table of ['rollup_days', 'daily_rollups', ...Object.keys(COPIED)]) {
      await run(`delete from ${table} where site_id = ?`, [site.id]);
    }
    for (const [table, after] of Object.entries(COPIED)) {
      const columns = (
        await conn.execute<{ name: string }[]>(
          `select column_name as name from information_schema.columns
            where table_schema = current_schema() and table_name = ? and column_name not in ('site_id', 'arrival')
            order by ordinal_position`,
          [table],
          'all',
          trx,
        )
      ).map((c) => `"${c.name}"`);
      await run(
        `insert into ${table} (site_id, ${columns.join(', ')})
           select ?::uuid, ${columns.join(', ')} from ${table} where site_id = ?::uuid and day between ?::date and ?::date`,
        [site.id, statsSiteId, day, addDays(day, after)],
      );
    }
  });
  log(
    `  copied ${want.toLocaleString('en')} pageviews of ${day} to the rollup steps' site in ${((performance.now() - t) / 1000).toFixed(1)} s (once)`,
  );
  return { siteId: site.id, day, pageviews: want };
}
