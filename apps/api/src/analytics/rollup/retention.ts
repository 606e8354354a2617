import { ANALYTICS_TABLES, dropPartitionsOfDays, type Orm, partitionDays } from '@us/db';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { addDays } from '../range.ts';
import { deleteOldestDays } from './day-deletes.ts';
import { FAILING_DAY_HOLD_MS } from './rollup-failures.ts';
import { RAW_PARTITION_DAYS } from './rollup-write.ts';

const DAY_MS = 86_400_000;

export { RAW_PARTITION_DAYS };

export interface RawRetentionRun {
  ran: boolean;
  dropped: string[];
  /** The oldest partition day that had to stay because a site has not rolled it up, if any. */
  blockedAt: string | null;
}

/**
 * Drops the raw partitions (all raw tables) whose UTC day is more than `rawDays` days before `now`,
 * but only the run of oldest days every one of which is rolled up: a day with a raw row of a site (that
 * still exists) whose site-local day has no complete rollup in `rollup_days` stays, with every later day.
 * Rows of deleted sites do not hold a day. `from` ignores partitions before that day (tests sharing a
 * database). Once across nodes.
 */
export async function dropRolledUpPartitions(
  orm: Orm,
  opts: { now?: Date; rawDays?: number; from?: string; wait?: boolean; logger?: Pick<Logger, 'info' | 'warn' | 'error'> } = {},
): Promise<RawRetentionRun> {
  const res = await withJobLock(
    orm,
    'rawRetention',
    async () => {
      const now = opts.now ?? new Date();
      const cutoff = new Date(now.getTime() - (opts.rawDays ?? RAW_PARTITION_DAYS) * DAY_MS).toISOString().slice(0, 10);
      const old = (await partitionDays(orm)).filter((d) => d < cutoff && (!opts.from || d >= opts.from));
      const droppable: string[] = [];
      let blockedAt: string | null = null;
      const givenUpBefore = new Date(now.getTime() - FAILING_DAY_HOLD_MS).toISOString();
      for (const day of old) {
        if (await dayBlocked(orm, day, givenUpBefore)) {
          blockedAt = day;
          break;
        }
        droppable.push(day);
      }
      const lastDropped = droppable.at(-1);
      if (lastDropped) await warnOfDaysGivenUp(orm, lastDropped, givenUpBefore, opts.logger);
      const dropped = await dropPartitionsOfDays(orm, droppable);
      if (dropped.length)
        opts.logger?.info(`retention: dropped ${dropped.length} raw partitions (${droppable[0]} to ${lastDropped})`);
      // A failure record outlives its day's rows by a day at most (a local day reaches a day past its UTC ones).
      if (lastDropped) {
        const conn = orm.em.getConnection();
        await conn.execute(`delete from rollup_failures where day < ?::date`, [lastDropped], 'run');
        // Results stored per day, and the arrivals versions they were checked against, answer raw-window questions
        // only (kept tables, journeys, funnels, goals and experiments): past it nothing reads them, and without this
        // they grew for as long as a site was kept.
        await conn.execute(`delete from result_days where day < ?::date`, [lastDropped], 'run');
        await conn.execute(`delete from day_arrivals where day < ?::date`, [lastDropped], 'run');
      }
      if (blockedAt) opts.logger?.warn(`retention: raw partitions from ${blockedAt} kept until their days are rolled up`);
      return { dropped, blockedAt };
    },
    { wait: opts.wait },
  );
  return res.ran ? { ran: true, ...res.result } : { ran: false, dropped: [], blockedAt: null };
}

/**
 * Whether a UTC day holds a raw row of an existing site whose local day is not rolled up, leaving out the local
 * days whose rollup has failed since before `givenUpBefore` (one tenant's broken day does not keep every
 * tenant's old partitions forever).
 */
async function dayBlocked(orm: Orm, day: string, givenUpBefore: string): Promise<boolean> {
  const rows = await orm.em.getConnection().execute(
    `select 1 from (
         select site_id, at from pageviews where day = ?::date
         union all select site_id, at from events where day = ?::date
         union all select site_id, at from requests where day = ?::date
       ) r
       join sites s on s.id = r.site_id
      -- A zone PostgreSQL does not know cannot be rolled up (the rollup job skips it): it holds nothing.
      where s.timezone in (select name from pg_timezone_names)
        and not exists (
        -- Of any zone: a day counted in the site's former zone that has not been counted again keeps that rollup
        -- (a local day reaching before the oldest partition is never counted again from part of its rows). A
        -- quarter-hour step's record is no rollup of the day: the rows after its boundary are in no rollup yet.
        select 1 from rollup_days rd where rd.site_id = r.site_id and rd.day = (r.at at time zone s.timezone)::date
           and rd.rolled_until is null)
        and not exists (
        select 1 from rollup_failures rf where rf.site_id = r.site_id and rf.day = (r.at at time zone s.timezone)::date
           and rf.first_failed_at < ?::timestamptz)
      limit 1`,
    [day, day, day, givenUpBefore],
    'all',
  );
  return rows.length > 0;
}

/** Names, as an error, each site-day failing for a week whose raw rows go now without a rollup. */
async function warnOfDaysGivenUp(
  orm: Orm,
  lastDropped: string,
  givenUpBefore: string,
  logger?: Pick<Logger, 'error'>,
): Promise<void> {
  const lost = await orm.em.getConnection().execute<{ site_id: string; day: string; attempts: number; error: string }[]>(
    `select site_id::text as site_id, to_char(day, 'YYYY-MM-DD') as day, attempts, error from rollup_failures
      where day <= ?::date + 1 and first_failed_at < ?::timestamptz order by day, site_id`,
    [lastDropped, givenUpBefore],
    'all',
  );
  for (const f of lost) {
    logger?.error(
      `retention: site ${f.site_id} day ${f.day} has no rollup after ${f.attempts} failed tries over a week (${f.error}); its raw rows go with the oldest partitions`,
    );
  }
}

export interface SiteRetentionRun {
  ran: boolean;
  sites: number;
  rawRows: number;
  rollupRows: number;
}

/** Raw UTC days one transaction of per-site retention deletes at most. */
const RAW_CHUNK_DAYS = 7;
/** Rollup days one transaction deletes at most. */
const ROLLUP_CHUNK_DAYS = 31;

/**
 * Per-site retention (`sites.retention_days`): for each site with a value N, deletes its raw rows and
 * rollups of local days before (today in its zone − N), i.e. it keeps today and the N days before.
 * `rollup_days` rows stay, so the rollup job does not revisit the emptied days. The oldest days go first, a week
 * of raw days (a month of rollups) per transaction: a retention set on a site of 90 busy days deleted tens of
 * millions of rows in one transaction, which a stop undid whole, every day again. Once across nodes.
 * `siteIds` narrows the run (tests); `chunkDays` sets the raw days per transaction (tests).
 */
export async function applySiteRetention(
  orm: Orm,
  opts: {
    now?: Date;
    siteIds?: string[];
    wait?: boolean;
    chunkDays?: number;
    logger?: Pick<Logger, 'info' | 'error'>;
  } = {},
): Promise<SiteRetentionRun> {
  const res = await withJobLock(
    orm,
    'siteRetention',
    async () => {
      const now = opts.now ?? new Date();
      const conn = orm.em.getConnection();
      if (opts.siteIds && !opts.siteIds.length) return { sites: 0, rawRows: 0, rollupRows: 0 };
      const siteCond = opts.siteIds ? `and s.id in (${opts.siteIds.map(() => '?').join(', ')})` : '';
      const sites = await conn.execute<RetainedSite[]>(
        `select id::text as id, to_char(cutoff, 'YYYY-MM-DD') as cutoff,
              to_char(lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as lo,
              to_char((lo at time zone 'UTC')::date, 'YYYY-MM-DD') as last_utc
         from (select s.id, c.cutoff, c.cutoff::timestamp at time zone s.timezone as lo
                 from sites s
                 cross join lateral (select (?::timestamptz at time zone s.timezone)::date - s.retention_days as cutoff) c
                where s.retention_days is not null ${siteCond}
                  and s.timezone in (select name from pg_timezone_names)) x`,
        [now.toISOString(), ...(opts.siteIds ?? [])],
        'all',
      );
      let rawRows = 0;
      let rollupRows = 0;
      for (const s of sites) {
        try {
          const done = await retainSite(orm, s, opts.chunkDays ?? RAW_CHUNK_DAYS);
          rawRows += done.rawRows;
          rollupRows += done.rollupRows;
        } catch (e) {
          opts.logger?.error(`retention: site ${s.id} failed`, e);
        }
      }
      if (rawRows || rollupRows) {
        opts.logger?.info(`retention: deleted ${rawRows} raw rows and ${rollupRows} rollup rows of ${sites.length} sites`);
      }
      return { sites: sites.length, rawRows, rollupRows };
    },
    { wait: opts.wait },
  );
  return res.ran ? { ran: true, ...res.result } : { ran: false, sites: 0, rawRows: 0, rollupRows: 0 };
}

interface RetainedSite {
  id: string;
  /** The first local day kept. */
  cutoff: string;
  /** Its first instant, and that instant's UTC day (the last raw day with rows to delete). */
  lo: string;
  last_utc: string;
}

/** One site's retention: its raw days (UTC) then its rollup days (local). */
async function retainSite(orm: Orm, s: RetainedSite, chunkDays: number): Promise<{ rawRows: number; rollupRows: number }> {
  const conn = orm.em.getConnection();
  const rawRows = await deleteOldestDays(
    conn,
    s.id,
    [
      ...ANALYTICS_TABLES.map((name) => ({ name, before: s.lo, counted: true })),
      // Stored result days hold figures of deleted rows, and the arrivals count them: both go with their days.
      { name: 'result_days' },
      { name: 'day_arrivals' },
    ],
    s.last_utc,
    chunkDays,
  );
  // Imported history is kept as long as the site's own figures of those days would be.
  const rollupRows = await deleteOldestDays(
    conn,
    s.id,
    [
      { name: 'daily_rollups', counted: true },
      { name: 'imported_rollups', counted: true },
    ],
    addDays(s.cutoff, -1),
    ROLLUP_CHUNK_DAYS,
  );
  return { rawRows, rollupRows };
}
