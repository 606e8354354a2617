import type { Orm } from '@us/db';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { keptPropertiesSql, sameKeysSql } from './kept-properties.ts';
import type { SiteDay } from './pending-days.ts';
import { rollupSiteDay } from './rollup.ts';
import { clearRollupFailure, noteRollupFailure } from './rollup-failures.ts';
import { ROLLUP_VERSION } from './rollup-format.ts';
import { RollupStopped } from './rollup-thread.ts';

/**
 * Today's rollups, kept current: each site's current local day is rolled up to the last quarter-hour
 * boundary that is `lagMs` (default 5 minutes) past, and recorded with `rolled_until` = that boundary.
 * The stats engine then reads the day's rollup rows plus only the raw rows after the boundary, so no
 * question reads more than the last 25 minutes or so of raw rows. Each refresh adds to the day's last
 * rollup what the visitors with rows it did not see change (rollup-delta.ts: rows of the new quarter,
 * and rows that arrived late for earlier ones), and the complete day's rollup (rollup.ts, an hour after
 * the day ends) does the same for the day's last quarter. A step's cost grows with its visitors, beside a
 * fixed cost of adding the changed rows: a busy hour's step missed the rollup's 1 s goal where a quarter's
 * meets it (docs/performance/history.md, "Quarter-hour steps"), so steps are quarter-hours.
 *
 * Sites: those with rows arriving for the UTC days around their local today (`day_arrivals`).
 */
export interface TodayRollupOptions {
  now?: Date;
  /** Only these sites (tests; a shared database). */
  siteIds?: string[];
  /** How long after a quarter-hour ends its rows are taken as arrived (later ones count at the next step). Default 5 minutes. */
  lagMs?: number;
  logger?: Pick<Logger, 'info' | 'error'>;
  /** Wait for another node's run to end instead of skipping (tests). */
  wait?: boolean;
}

export interface TodayRollupRun {
  ran: boolean;
  /** Site-days refreshed. */
  refreshed: number;
  failed: number;
}

const DEFAULT_LAG_MS = 300_000;
/** The steps today's rollup advances by. */
const TODAY_STEP_MS = 900_000;

/** Refreshes the current day's rollups of every site whose rollup is older than the last step's boundary. */
export async function runTodayRollups(orm: Orm, opts: TodayRollupOptions = {}): Promise<TodayRollupRun> {
  const res = await withJobLock(orm, 'todayRollups', () => refreshToday(orm, opts), { wait: opts.wait });
  return res.ran ? res.result : { ran: false, refreshed: 0, failed: 0 };
}

async function refreshToday(orm: Orm, opts: TodayRollupOptions): Promise<TodayRollupRun> {
  const now = opts.now ?? new Date();
  const until = new Date(
    Math.floor((now.getTime() - (opts.lagMs ?? DEFAULT_LAG_MS)) / TODAY_STEP_MS) * TODAY_STEP_MS,
  ).toISOString();
  const run: TodayRollupRun = { ran: true, refreshed: 0, failed: 0 };
  for (const sd of await dueSiteDays(orm, until, opts.siteIds, now)) {
    try {
      await rollupSiteDay(orm, sd, until);
      if (sd.failures) await clearRollupFailure(orm, sd);
      run.refreshed += 1;
    } catch (e) {
      // An orderly stop (rollup-thread.ts): no failure of the day, and no new thread for the next site.
      if (e instanceof RollupStopped) break;
      run.failed += 1;
      await noteRollupFailure(orm, sd, e, now, "today's rollups", opts.logger);
    }
  }
  if (run.refreshed || run.failed) {
    opts.logger?.info(`today's rollups: ${run.refreshed} sites rolled up to ${until}, ${run.failed} failed`);
  }
  return run;
}

/**
 * Sites whose local day holding `until` began before it, that have rows around that day, and whose
 * rollup of that day is missing, reaches an earlier boundary or is of an older format (a complete day
 * is never redone here), or was counted with other kept property keys than the site's or in its former time zone.
 * The least current first (no rollup yet, then the earliest boundary), so a run longer than the job's period
 * leaves the same sites behind no more than others; a day whose rollup failed only once its next try is due at
 * `now` (rollup-failures.ts). The arrivals, the rollups and the failures are read as sets of their own (a local
 * day is within a day of `until`'s UTC day), not per site: Citus runs a subquery on its distributed tables only
 * when it is not correlated with the sites (a reference table).
 */
export async function dueSiteDays(orm: Orm, until: string, siteIds?: string[], now = new Date()): Promise<SiteDay[]> {
  if (siteIds && siteIds.length === 0) return [];
  const siteCond = (column: string) => (siteIds ? `and ${column} = any(?::uuid[])` : '');
  // Arrays go as PostgreSQL array literals (the values are uuids).
  const sites = siteIds ? [`{${siteIds.join(',')}}`] : [];
  const around = [until, until, ...sites];
  const rows = await orm.em.getConnection().execute<{ site_id: string; timezone: string; day: string; failures: number }[]>(
    `with arrived as materialized (
       select distinct a.site_id, a.day from day_arrivals a
        where a.day between (?::timestamptz at time zone 'UTC')::date - 2 and (?::timestamptz at time zone 'UTC')::date + 2
          ${siteCond('a.site_id')}
     ),
     current as materialized (
       select rd.site_id, rd.day, rd.rolled_until is null as complete, rd.properties, rd.timezone from rollup_days rd
        where rd.day between (?::timestamptz at time zone 'UTC')::date - 1 and (?::timestamptz at time zone 'UTC')::date + 1
          and (rd.rolled_until is null or (rd.rolled_until >= ?::timestamptz and rd.version >= ${ROLLUP_VERSION}))
          ${siteCond('rd.site_id')}
     ),
     reached as materialized (
       select rd.site_id, rd.day, rd.rolled_until from rollup_days rd
        where rd.day between (?::timestamptz at time zone 'UTC')::date - 1 and (?::timestamptz at time zone 'UTC')::date + 1
          ${siteCond('rd.site_id')}
     ),
     failing as materialized (
       select rf.site_id, rf.day, rf.attempts, rf.next_try_at from rollup_failures rf
        where rf.day between (?::timestamptz at time zone 'UTC')::date - 1 and (?::timestamptz at time zone 'UTC')::date + 1
          ${siteCond('rf.site_id')}
     )
     select s.id::text as site_id, s.timezone, to_char(t.day, 'YYYY-MM-DD') as day, coalesce(f.attempts, 0) as failures
       from sites s
       cross join lateral (select (?::timestamptz at time zone s.timezone)::date as day) t
       left join reached r on r.site_id = s.id and r.day = t.day
       left join failing f on f.site_id = s.id and f.day = t.day
      where s.timezone in (select name from pg_timezone_names)
        and (t.day::timestamp at time zone s.timezone) < ?::timestamptz
        ${siteCond('s.id')}
        and exists (select 1 from arrived a where a.site_id = s.id and a.day between t.day - 1 and t.day + 1)
        and not exists (select 1 from current c where c.site_id = s.id and c.day = t.day
                          and (c.timezone is null or c.timezone = s.timezone)
                          and (c.complete or ${sameKeysSql('c.properties', keptPropertiesSql('s'))}))
        and (f.next_try_at is null or f.next_try_at <= ?::timestamptz)
      order by r.rolled_until nulls first, s.id`,
    // Each set's two bounds around `until` and its sites; the rollups already current one more `until`.
    [...around, until, ...around, ...around, ...around, ...around, now.toISOString()],
    'all',
  );
  return rows.map((r) => ({ siteId: r.site_id, timezone: r.timezone, day: r.day, failures: r.failures }));
}
