// The rollup tallies' own thread (rollup-thread.ts starts it): reads a site-day's COPY streams on connections of
// its own, counts the day's rollup rows and writes them, so the API's event loop never runs the counting or the
// rows' encoding (on it, a large site-day paused the loop: docs/performance/history.md, "The rollup's 1 s goal").
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { releaseWhenIdle } from '../../core/heap-release.ts';
import { pooledCopyOut } from './copy-connections.ts';
import {
  arrivalsAheadSql,
  clearArrivalsSql,
  recordedElsewhere,
  type ServerSnapshot,
  SNAPSHOT_ALONE_SQL,
  SNAPSHOT_WITH_SERVER_SQL,
  usableLast,
} from './moved-database.ts';
import { deltaRows, deltaSource, type RolledState, seenSource, unseenVisitorsSql } from './rollup-delta.ts';
import type { RollupSource } from './rollup-format.ts';
import { tallyDelta, tallySiteDay } from './rollup-streams.ts';
import { addToSiteDayRollup, type RunStatement, replaceSiteDayRollup } from './rollup-write.ts';

/** Roll up one site-day: its rows are where `src` says, counted on `atOnce` connections. */
export interface RollupTask {
  id: number;
  src: RollupSource;
  /** The whole day's rows (`src` without its `until`): where rows restored from another server are looked for. */
  wholeDay: RollupSource;
  atOnce: number;
  siteId: string;
  day: string;
  /** The site's time zone (the local day's bounds in `src`). */
  timezone: string;
  /** The instant the rows reach (the current day), null for a complete day. */
  until: string | null;
  /** The day's last rollup, when it can be brought up to date (rollup-delta.ts); else the whole day is counted. */
  last: RolledState | null;
  /** The UTC day of the day's first raw partition (`YYYY-MM-DD`). */
  firstUtc: string;
  /** Replace a rollup that reaches further too (rollup-write.ts, `ReplaceOptions`). */
  rewind?: boolean;
  /** The values the day's groupings keep together (rollup-tally.ts, VALUES_PER_DAY); lower in tests. */
  valuesPerDay?: number;
}

/** What a task did: rollup rows written (or changed), and the visitors recounted (null: the whole day was counted). */
export interface RollupDone {
  rows: number;
  recounted: number | null;
}

/** Recounting more than this share of the visitors the last rollup counted costs more than counting the day once. */
const MAX_RECOUNTED_SHARE = 0.5;

/**
 * This thread's scheduling priority (nice): below the event loop's, so on a machine whose cores are all busy
 * the loop answering requests runs first and the counting waits (it is background work; a quarter-hour step
 * may take longer). On Linux it applies to this thread alone; anyone may lower their own priority.
 */
const ROLLUP_THREAD_NICE = 10;
try {
  setPriority(ROLLUP_THREAD_NICE);
} catch {
  // A platform that does not allow it: the thread runs at the process's priority.
}

const { url, connections } = workerData as { url: string; connections: number };
// Idle connections close soon: the thread lives as long as the process, a rollup runs now and then.
const pool = new pg.Pool({ connectionString: url, max: connections, idleTimeoutMillis: 1000, allowExitOnIdle: true });
// A connection that breaks while idle (a database restart) is dropped; the next stream takes a new one.
pool.on('error', () => {});
const copyOut = pooledCopyOut(pool);

type Query = <R>(sql: string, params?: unknown[]) => Promise<R[]>;

/** `fn` in a transaction on a connection of the pool (discarded if anything fails). */
async function inTransaction(fn: (run: RunStatement & Query) => Promise<void>) {
  const client = await pool.connect();
  try {
    // A rollup is derived data: a crash that loses its commit loses its rollup_days record too, so the day is counted again.
    await client.query('begin; set local synchronous_commit = off');
    await fn((async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows) as RunStatement & Query);
    await client.query('commit');
    client.release();
  } catch (e) {
    client.release(e instanceof Error ? e : true);
    throw e;
  }
}

const query: Query = async (sql, params) => (await pool.query(sql, params)).rows;

/** Whether the server answers which server it is (a role an operator refused pg_control_system answers '' from then on). */
let serverTold = true;

/** A snapshot of now, with the server that took it. */
async function snapshotNow(): Promise<ServerSnapshot> {
  if (serverTold) {
    try {
      return (await query<ServerSnapshot>(SNAPSHOT_WITH_SERVER_SQL))[0] as ServerSnapshot;
    } catch (e) {
      if ((e as { code?: string }).code !== '42501') throw e;
      serverTold = false;
    }
  }
  return (await query<ServerSnapshot>(SNAPSHOT_ALONE_SQL))[0] as ServerSnapshot;
}

/** Whether the day holds rows another server numbered (moved-database.ts). */
async function arrivalsAhead(wholeDay: RollupSource, now: ServerSnapshot): Promise<boolean> {
  const [row] = await query<{ ahead: boolean }>(arrivalsAheadSql(wholeDay, now.snapshot));
  return row?.ahead === true;
}

const recordOf = (task: RollupTask, now: ServerSnapshot, omitted: Iterable<string>) => ({
  until: task.until,
  snapshot: now,
  properties: task.src.keptProperties,
  timezone: task.timezone,
  omitted: [...omitted].sort(),
  firstUtc: task.firstUtc,
});

/** Counts the whole day as `now` sees it and replaces its rollup. */
async function rollUpWholeDay(task: RollupTask, now: ServerSnapshot): Promise<RollupDone> {
  const omitted = new Set<string>();
  const rows = await tallySiteDay(seenSource(task.src, now.snapshot), copyOut, task.atOnce, 1, omitted, task.valuesPerDay);
  let written = false;
  await inTransaction(async (run) => {
    written = await replaceSiteDayRollup(run, task.siteId, task.day, rows, recordOf(task, now, omitted), task);
  });
  return { rows: written ? rows.length : 0, recounted: null };
}

/**
 * Brings the day's last rollup up to date (rollup-delta.ts), or answers null when too many of its
 * visitors have unseen rows. Fails if another rollup of the day was written meanwhile.
 */
async function rollUpDelta(task: RollupTask, last: RolledState, now: ServerSnapshot): Promise<RollupDone | null> {
  const snapshot = now.snapshot;
  const [unseen, [day]] = await Promise.all([
    query<{ visitor: string }>(unseenVisitorsSql(task.src, last, snapshot)),
    query<{ visitors: string | null }>(
      `select sum(visitors)::text as visitors from daily_rollups
        where site_id = $1::uuid and day = $2::date and metric_set = 'pageviews' and dimension = ''`,
      [task.siteId, task.day],
    ),
  ]);
  const visitors = unseen.map((r) => r.visitor);
  if (visitors.length > MAX_RECOUNTED_SHARE * Number(day?.visitors ?? 0)) return null;
  // The recounted visitors' own rows left a grouping out: too many to add up here, the day is counted whole.
  const omittedNow = new Set<string>();
  const { before, after } = await tallyDelta(
    deltaSource(task.src, last, snapshot, visitors),
    copyOut,
    task.atOnce,
    omittedNow,
    task.valuesPerDay,
  );
  if ([...omittedNow].some((pair) => !last.omitted.includes(pair))) return null;
  // Groupings the day's rollup left out get no rows.
  const deltas = deltaRows(before, after).filter((r) => !last.omitted.includes(r.dimension));
  await inTransaction(async (run) => {
    const [state] = await run<{ same: boolean }>(
      `select rolled_until is not distinct from $3::timestamptz and snapshot::text = $4 as same from rollup_days
        where site_id = $1::uuid and day = $2::date for update`,
      [task.siteId, task.day, last.complete ? null : last.until, last.snapshot],
    );
    if (state?.same !== true) throw new Error('the site-day was rolled up by another run meanwhile');
    await addToSiteDayRollup(run, task.siteId, task.day, deltas, recordOf(task, now, last.omitted));
  });
  return { rows: deltas.length, recounted: visitors.length };
}

/**
 * A day's tallies are garbage once its rollup is written: this thread's heap gives them back (it holds no request
 * up) once no rollup has come for a second, or at most every 10 s while they keep coming, so a row of rollups (a
 * run's site-days) does not pay a full collection for each day.
 */
const idle = releaseWhenIdle(1000, 10_000);

parentPort?.on('message', async (task: RollupTask) => {
  idle.started();
  try {
    // Rows committed after this snapshot are left to the next rollup, which will find them unseen.
    let now = await snapshotNow();
    let last = task.last;
    if (recordedElsewhere(last, now) || (await arrivalsAhead(task.wholeDay, now))) {
      // The database came from another server (moved-database.ts): its day is counted whole, its rows seen by all.
      await inTransaction(async (run) => {
        for (const sql of clearArrivalsSql(task.wholeDay, now.snapshot)) await run(sql);
      });
      now = await snapshotNow();
      last = null;
    }
    if (last && !usableLast(last, now)) last = null;
    const done = (last && (await rollUpDelta(task, last, now))) ?? (await rollUpWholeDay(task, now));
    parentPort?.postMessage({ id: task.id, ...done });
  } catch (e) {
    const error = e instanceof Error ? { message: e.message, code: (e as { code?: string }).code } : { message: String(e) };
    parentPort?.postMessage({ id: task.id, error });
  }
  idle.ended();
});
