import type { Orm } from '@us/db';
import { CompiledQuery } from 'kysely';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { rollupLag, rollupOldestPending } from '../../core/observe/metrics.ts';
import { keptPropertiesSql, sameKeys } from './kept-properties.ts';
import { oldestUnclosedDay, type PendingDaysOptions, pendingSiteDays, type SiteDay } from './pending-days.ts';
import { lateSiteDay, recentCompleteDays } from './pending-late.ts';
import { lateRowsSql, type RolledState } from './rollup-delta.ts';
import { clearRollupFailure, noteRollupFailure } from './rollup-failures.ts';
import { ROLLED_TABLES, ROLLUP_VERSION, type RollupSource } from './rollup-format.ts';
import { RollupStopped, rollupInThread } from './rollup-thread.ts';
import { type ReplaceOptions, replaceSiteDayRollup } from './rollup-write.ts';

/**
 * The daily rollup job: writes `daily_rollups` (format: the header of stats/catalogue.ts) for every
 * complete site-local day that is not in `rollup_days` yet, one transaction per site-day (its rows and
 * its `rollup_days` row together; a re-run deletes and rewrites that site-day, so it is harmless).
 *
 * - A local day is complete once the site's local midnight after it is `graceMs` (default 1 h) past,
 *   so rows the buffers and the edge SDK deliver late still land in it.
 * - Candidates are the local days overlapping an existing raw partition (catalog, no table scan) that
 *   are not rolled up in the current format (ROLLUP_VERSION) with the site's kept property keys
 *   (kept-properties.ts: a changed list rolls the raw window's days up again), at most `maxDays` per run, in
 *   an order fair between tenants (`pendingSiteDays`), and none started after `maxRunMs`. A day whose rollup failed
 *   is tried again an hour later, then further apart (rollup-failures.ts). A day rolled up before whose first UTC day's partition
 *   is gone already is left as it is: rolled up again from what is left, it would lose the rows of that partition.
 *   A candidate with no raw rows gets only its `rollup_days` row (nothing to roll up), so it is not probed again.
 * - Lanes are the stored `lane` column: a site's bot windows are not applied in rollups.
 * - Rows arriving for a day after its complete rollup are not added to its rollups.
 * - A day whose current-day rollup (rollup-today.ts) recorded its snapshot is completed incrementally
 *   (rollup-delta.ts).
 */

const DEFAULT_MAX_DAYS = 500;
/** A run takes no new site-day after this long, so that the days closed meanwhile wait minutes, not hours. */
const DEFAULT_MAX_RUN_MS = 600_000;

export interface RunRollupsOptions extends PendingDaysOptions {
  /** Site-days per run, in the order of `pendingSiteDays`. Default 500. */
  maxDays?: number;
  /** A run takes no new site-day once it has run this long (ms of the wall clock). Default 10 minutes. */
  maxRunMs?: number;
  /** Wait for another node's run to end instead of skipping (tests, one-off runs). */
  wait?: boolean;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface RollupRun {
  /** false when another node held the job's lock. */
  ran: boolean;
  /** Site-days rolled up that had raw rows. */
  rolled: number;
  /** Candidate site-days that had no raw rows (marked done). */
  empty: number;
  /** true when the run stopped at `maxDays` or `maxRunMs` with more candidates waiting. */
  more: boolean;
  failed: number;
}

/** Rolls up every complete site-local day not rolled up yet (bounded per run; once across nodes). */
export async function runRollups(orm: Orm, opts: RunRollupsOptions = {}): Promise<RollupRun> {
  const res = await withJobLock(orm, 'rollups', () => rollupPending(orm, opts), { wait: opts.wait });
  return res.ran ? res.result : { ran: false, rolled: 0, empty: 0, more: false, failed: 0 };
}

async function rollupPending(orm: Orm, opts: RunRollupsOptions): Promise<RollupRun> {
  const maxDays = opts.maxDays ?? DEFAULT_MAX_DAYS;
  const started = Date.now();
  const maxRunMs = opts.maxRunMs ?? DEFAULT_MAX_RUN_MS;
  const candidates = await pendingSiteDays(orm, opts, maxDays + 1);
  const run: RollupRun = { ran: true, rolled: 0, empty: 0, more: candidates.length > maxDays, failed: 0 };
  const now = () => opts.now?.getTime() ?? Date.now();
  let oldestFailed: number | undefined;
  const taken = candidates.slice(0, maxDays);
  for (const [i, sd] of taken.entries()) {
    if (i > 0 && Date.now() - started >= maxRunMs) {
      run.more = true;
      break;
    }
    try {
      if (await rollupSiteDay(orm, sd)) run.rolled += 1;
      else run.empty += 1;
      if (sd.failures) await clearRollupFailure(orm, sd);
      // A day counted again had its complete rollup long ago: its age is no lag.
      if (sd.endedAt !== undefined && !sd.recount) rollupLag.observe((now() - sd.endedAt) / 1000);
    } catch (e) {
      // An orderly stop: no failure of the day, and no new thread for the next one.
      if (e instanceof RollupStopped) {
        run.more = true;
        break;
      }
      run.failed += 1;
      if (sd.endedAt !== undefined && !sd.recount) oldestFailed = Math.min(oldestFailed ?? sd.endedAt, sd.endedAt);
      await noteRollupFailure(orm, sd, e, new Date(now()), 'rollups', opts.logger);
    }
    if ((run.rolled + run.empty) % 100 === 0) {
      opts.logger?.info(`rollups: ${run.rolled + run.empty}/${Math.min(maxDays, candidates.length)} site-days`);
    }
  }
  // Then the complete days with late rows, while the run has room and time.
  if (!run.more) await rollupLateDays(orm, opts, run, maxDays - taken.length, started + maxRunMs);
  // The oldest complete site-day this run leaves without a rollup (a failure now or before, waiting for its next
  // try, or past the run's bound), read again as the run took its days by turns; a day counted again keeps its
  // rollup meanwhile. Ages on the run's clock.
  const { more } = run;
  const oldestLeft = await oldestUnclosedDay(orm, opts).catch((e) => {
    opts.logger?.error('rollups: the oldest day left could not be read; the gauge counts the failed days only', e);
    return oldestFailed;
  });
  rollupOldestPending.set(oldestLeft === undefined ? 0 : Math.max(0, (now() - oldestLeft) / 1000));
  if (run.rolled || run.failed || more) {
    opts.logger?.info(
      `rollups: ${run.rolled} site-days rolled up, ${run.empty} empty, ${run.failed} failed in ${Date.now() - started} ms${more ? '; more waiting' : ''}`,
    );
  }
  return run;
}

/**
 * Adds the late rows of recent complete days (pending-late.ts) to their rollups, up to `room` days and until
 * `deadline`; `run.more` when some were left. A day that fails is logged and looked at again next run (its
 * complete rollup still answers, without the late rows).
 */
async function rollupLateDays(orm: Orm, opts: RunRollupsOptions, run: RollupRun, room: number, deadline: number) {
  const recent = await recentCompleteDays(orm, opts);
  let left = room;
  for (const d of recent) {
    if (left <= 0 || Date.now() >= deadline) {
      run.more = true;
      return;
    }
    const sd = lateSiteDay(d);
    try {
      const src = await siteDaySource(orm, sd);
      const [found] = await orm.em.getConnection().execute<{ late: boolean }[]>(lateRowsSql(src, d), [], 'all');
      if (found?.late !== true) continue;
      left -= 1;
      if (await rollupSiteDay(orm, sd)) run.rolled += 1;
    } catch (e) {
      if (e instanceof RollupStopped) {
        run.more = true;
        return;
      }
      run.failed += 1;
      opts.logger?.warn(
        `rollups: the late rows of site ${sd.siteId} day ${sd.day} were not added (tried again next run): ${String(e)}`,
      );
    }
  }
}

interface Bounds {
  /** Local midnight starting the day, and the next one (ISO instants). */
  lo: string;
  hi: string;
  /** The UTC days (partitions) that can hold the day's rows. */
  firstUtc: string;
  lastUtc: string;
  /** The site's kept property keys, as its settings hold them. */
  kept: string[];
}

async function boundsOf(orm: Orm, sd: SiteDay): Promise<Bounds> {
  const [b] = await orm.em.getConnection().execute<Bounds[]>(
    `select to_char(lo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "lo",
            to_char(hi at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "hi",
            to_char((lo at time zone 'UTC')::date, 'YYYY-MM-DD') as "firstUtc",
            to_char(((hi - interval '1 microsecond') at time zone 'UTC')::date, 'YYYY-MM-DD') as "lastUtc",
            coalesce((select ${keptPropertiesSql('s')} from sites s where s.id = ?::uuid), '{}') as "kept"
       from (select (?::date)::timestamp at time zone ? as lo, (?::date + 1)::timestamp at time zone ? as hi) b`,
    [sd.siteId, sd.day, sd.timezone, sd.day, sd.timezone],
    'all',
  );
  if (!b) throw new Error('no bounds');
  return b;
}

/** A site-day's raw rows (before `until`, when given) within its bounds. */
function sourceWithin(sd: SiteDay, b: Bounds, until?: string): RollupSource {
  return {
    tables: { pageviews: 'pageviews', events: 'events', requests: 'requests', page_leaves: 'page_leaves' },
    where: `site_id = ?::uuid and day between ?::date and ?::date and at >= ?::timestamptz and at < ?::timestamptz`,
    whereParams: [sd.siteId, b.firstUtc, b.lastUtc, b.lo, until ?? b.hi],
    // A leave report may be stored up to two days after its pageview (those of the later days are read only for the
    // day's pageviews: `lateLeavesAfter`).
    leavesWhere: 'l.site_id = ?::uuid and l.day between ?::date and ?::date + 2',
    leavesParams: [sd.siteId, b.firstUtc, b.lastUtc],
    lateLeavesAfter: b.lastUtc,
    keptProperties: b.kept,
  };
}

/**
 * Where a site-day's raw rows are (before `until`, when given): its local day's instants within its UTC day
 * partitions; with the site's kept property keys.
 */
export async function siteDaySource(orm: Orm, sd: SiteDay, until?: string): Promise<RollupSource> {
  return sourceWithin(sd, await boundsOf(orm, sd), until);
}

/** What rolling up a site-day did: rollup rows written, visitors recounted (null: the whole day was counted). */
export interface SiteDayRolled {
  rows: number;
  recounted: number | null;
}

/** A site-day's `rollup_days` record, as the next rollup reads it. */
interface DayRecordRow {
  until: string | null;
  snapshot: string | null;
  server: string | null;
  version: number;
  properties: string[];
  timezone: string | null;
  omitted: string[];
}

/**
 * The day's last rollup, when the next one can start from it (rollup-delta.ts): a rollup in this format and with
 * these kept property keys and time zone that recorded its snapshot, reaching no further than `until` (null: the
 * day's end, `dayEnd`). A complete rollup is brought up to date by its late rows (pending-late.ts).
 */
async function lastRollup(
  orm: Orm,
  sd: SiteDay,
  src: RollupSource,
  until: string | null,
  dayEnd: string,
): Promise<RolledState | null> {
  const [last] = await orm.em.getConnection().execute<DayRecordRow[]>(
    `select to_char(rolled_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as until,
            snapshot::text as snapshot, snapshot_server as server, version, properties, timezone, omitted_pairs as omitted
       from rollup_days where site_id = ? and day = ?`,
    [sd.siteId, sd.day],
    'all',
  );
  if (!last?.snapshot || last.version !== ROLLUP_VERSION) return null;
  // Counted in the site's former time zone: another local day.
  if (last.timezone !== null && last.timezone !== sd.timezone) return null;
  if (!sameKeys(last.properties, src.keptProperties ?? [])) return null;
  const complete = last.until === null;
  // A complete day is brought up to date to its end only (a step ending within it writes nothing: rollup-write.ts).
  if (complete && until !== null) return null;
  const reached = last.until ?? dayEnd;
  if (until !== null && Date.parse(until) < Date.parse(reached)) return null;
  return { until: reached, complete, snapshot: last.snapshot, server: last.server, omitted: last.omitted };
}

/**
 * Rolls up one site-local day: the rollup thread (rollup-thread.ts) counts its rollup rows from COPY
 * streams of the day's rows (rollup-streams.ts) on up to `ROLLUP_CONNECTIONS` connections, then deletes
 * the day's rollup rows, writes the new ones and records the day in `rollup_days`, in one short
 * transaction (a day without rows gets only that record). A day rolled up before up to an hour
 * (rollup-today.ts) is brought up to date by recounting only the visitors with rows that rollup did
 * not see (rollup-delta.ts). Answers null when the day has no raw rows. `until` (an instant within the
 * day): only rows before it, recorded as the day's `rolled_until` (the current day); without it the
 * day is complete. A rollup of the day that reaches further than `until` stays unless `opts.rewind`, and so does
 * one whose first raw partition retention dropped meanwhile (rollup-write.ts); nothing is written then.
 */
export async function rollupSiteDay(
  orm: Orm,
  sd: SiteDay,
  until?: string,
  opts: ReplaceOptions & { valuesPerDay?: number } = {},
): Promise<SiteDayRolled | null> {
  const conn = orm.em.getConnection();
  const bounds = await boundsOf(orm, sd);
  const src = sourceWithin(sd, bounds, until);
  const [probe] = await conn.execute<{ any: boolean }[]>(
    `select ${ROLLED_TABLES.map((t) => `exists (select 1 from ${t} where ${src.where})`).join(' or ')} as any`,
    ROLLED_TABLES.flatMap(() => src.whereParams),
    'all',
  );
  if (probe?.any === true) {
    // Counted and written in the rollup thread: the API's event loop neither counts nor encodes the rows.
    const last = await lastRollup(orm, sd, src, until ?? null, bounds.hi);
    const wholeDay = until === undefined ? src : sourceWithin(sd, bounds);
    return rollupInThread(orm, {
      src,
      wholeDay,
      atOnce: ROLLUP_CONNECTIONS,
      siteId: sd.siteId,
      day: sd.day,
      timezone: sd.timezone,
      until: until ?? null,
      last,
      firstUtc: bounds.firstUtc,
      rewind: opts.rewind,
      valuesPerDay: opts.valuesPerDay,
    });
  }
  await conn
    .getClient()
    .transaction()
    .execute((trx) =>
      replaceSiteDayRollup(
        async (sql, params) => (await trx.executeQuery(CompiledQuery.raw(sql, params))).rows,
        sd.siteId,
        sd.day,
        [],
        { until: until ?? null, properties: src.keptProperties, timezone: sd.timezone, firstUtc: bounds.firstUtc },
        opts,
      ),
    );
  return null;
}

/** Connections one site-day's rollup reads on at once (the leave reports beside the pageviews, then events and requests). */
const ROLLUP_CONNECTIONS = 2;
