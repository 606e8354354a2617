// Writing one site-day's rollup: its rows and its `rollup_days` record, inside the caller's transaction.
import type { ServerSnapshot } from './moved-database.ts';
import { ROLLUP_VERSION, type RollupRow, rollupRowKey } from './rollup-format.ts';

/** Runs one statement with `$n` parameters inside the caller's transaction; resolves with its rows. */
export type RunStatement = (sql: string, params: unknown[]) => Promise<unknown[]>;

/** Rollup rows as one bound array per column: metric set, dimension, value, lane, count, visitors. */
const columnsOf = (rows: RollupRow[]) => [
  rows.map((r) => r.metric_set),
  rows.map((r) => r.dimension),
  rows.map((r) => r.value),
  rows.map((r) => r.lane),
  rows.map((r) => String(r.count)),
  rows.map((r) => String(r.visitors)),
];

/** Inserts one site-day's rollup rows (one bound array per column); `conflict`: what a row already there does. */
async function writeRollupRows(run: RunStatement, siteId: string, day: string, rows: RollupRow[], conflict = '') {
  if (!rows.length) return;
  await run(
    `insert into daily_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors)
       select $1::uuid, $2::date, * from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
       ${conflict}`,
    [siteId, day, ...columnsOf(rows)],
  );
}

/** What an inserted row whose key is stored already does instead. */
const onConflictSet = (set: string) => `on conflict (site_id, day, metric_set, dimension, value, lane) do update set ${set}`;

/** What turns the `stored` rollup rows into `rows`: rows new or with other sums, and rows no longer counted. */
export function rollupChanges(stored: RollupRow[], rows: RollupRow[]): { changed: RollupRow[]; gone: RollupRow[] } {
  const left = new Map(stored.map((r) => [rollupRowKey(r), r]));
  const changed: RollupRow[] = [];
  for (const r of rows) {
    const key = rollupRowKey(r);
    const was = left.get(key);
    if (was === undefined || String(was.count) !== String(r.count) || String(was.visitors) !== String(r.visitors))
      changed.push(r);
    left.delete(key);
  }
  return { changed, gone: [...left.values()] };
}

/**
 * Replaces a site-day's rollup rows with `rows` and records the day in `rollup_days` in the current
 * format. Only what differs is written when that is the smaller part: rows no longer counted deleted, new
 * and changed ones upserted, the others left as they are (a day counted again, as after a long pause or a
 * format change, mostly gives the same rows; rewriting them all was most of the write, and left as many
 * dead rows to vacuum: docs/performance/history.md, "Writing only the rollup rows that changed").
 * `record` (`SiteDayRecord`) says what the rows are.
 * The record comes first: every writer of a site-day locks its `rollup_days` row before its rollup rows
 * (the incremental one selects it `for update`), so two rollups of one day wait for each other instead
 * of each holding what the other needs (a deadlock, one of them thrown away).
 */
export async function replaceSiteDayRollup(
  run: RunStatement,
  siteId: string,
  day: string,
  rows: RollupRow[],
  record: SiteDayRecord,
  opts: ReplaceOptions = {},
): Promise<boolean> {
  if (!(await mayReplace(run, siteId, day, record, opts))) return false;
  await recordSiteDay(run, siteId, day, record);
  const stored = (await run(
    `select metric_set, dimension, value, lane, count::text as count, visitors::text as visitors
       from daily_rollups where site_id = $1::uuid and day = $2::date`,
    [siteId, day],
  )) as RollupRow[];
  const { changed, gone } = rollupChanges(stored, rows);
  if (changed.length + gone.length > stored.length / 2) {
    await run('delete from daily_rollups where site_id = $1::uuid and day = $2::date', [siteId, day]);
    await writeRollupRows(run, siteId, day, rows);
    return true;
  }
  if (gone.length) {
    await run(
      `delete from daily_rollups where site_id = $1::uuid and day = $2::date
         and (metric_set, dimension, value, lane) in (select * from unnest($3::text[], $4::text[], $5::text[], $6::text[]))`,
      [siteId, day, ...columnsOf(gone).slice(0, 4)],
    );
  }
  await writeRollupRows(run, siteId, day, changed, onConflictSet('count = excluded.count, visitors = excluded.visitors'));
  return true;
}

export interface ReplaceOptions {
  /** Replace a rollup that reaches further too (benches and tests that roll a day back to an earlier step). */
  rewind?: boolean;
}

/** Raw partitions are kept this many UTC days (spec §8: 90 days of raw history, plus a margin for zones). */
export const RAW_PARTITION_DAYS = 92;

/**
 * Whether a count of the day may replace the rollup it has, whose record this locks first: not when that rollup
 * reaches further (a quarter-hour step of a run that began before midnight, ending after the day was closed), nor
 * when the day was rolled up before and retention dropped its first raw partition while it was counted (the count
 * saw part of the day; the candidates leave such days as they are). A partition missing within the days retention
 * keeps was never made (nothing was stored that UTC day): the count saw the whole day.
 */
async function mayReplace(
  run: RunStatement,
  siteId: string,
  day: string,
  record: SiteDayRecord,
  opts: ReplaceOptions,
): Promise<boolean> {
  const [held] = (await run(
    `select rolled_until is null as complete, rolled_until > $3::timestamptz as further from rollup_days
      where site_id = $1::uuid and day = $2::date for update`,
    [siteId, day, record.until],
  )) as { complete: boolean; further: boolean | null }[];
  if (!held) return true;
  if (!opts.rewind && record.until !== null && (held.complete || held.further === true)) return false;
  if (record.firstUtc === undefined) return true;
  const retained = new Date(Date.now() - RAW_PARTITION_DAYS * 86_400_000).toISOString().slice(0, 10);
  if (record.firstUtc >= retained) return true;
  // A statement of its own: on Citus the one above runs on a worker, where partitions have other names.
  const [first] = (await run('select to_regclass($1::text) is not null as present', [
    `pageviews_p${record.firstUtc.replaceAll('-', '')}`,
  ])) as { present: boolean }[];
  return first?.present === true;
}

/**
 * Adds `deltas` (rollup-delta.ts: what recounted visitors change) to a site-day's rollup rows, drops the
 * rows left with nothing counted (as a whole day's count leaves them out; the summary's rows stay),
 * and records the day as `replaceSiteDayRollup` does.
 */
export async function addToSiteDayRollup(
  run: RunStatement,
  siteId: string,
  day: string,
  deltas: RollupRow[],
  record: SiteDayRecord & { snapshot: ServerSnapshot },
) {
  await writeRollupRows(
    run,
    siteId,
    day,
    deltas,
    onConflictSet('count = daily_rollups.count + excluded.count, visitors = daily_rollups.visitors + excluded.visitors'),
  );
  await run(
    `delete from daily_rollups where site_id = $1::uuid and day = $2::date and count = 0 and visitors = 0 and metric_set <> 'summary'`,
    [siteId, day],
  );
  await recordSiteDay(run, siteId, day, record);
}

/** What a site-day's rollup rows are, kept in its `rollup_days` record. */
export interface SiteDayRecord {
  /** The instant the rows reach (the current day), null for a complete day. */
  until: string | null;
  /** Which rows the count saw and the server that took it (rollup-delta.ts, moved-database.ts); null when
   * unknown: the next rollup then counts the whole day. */
  snapshot?: ServerSnapshot | null;
  /** The site's kept property keys the rows were counted with (kept-properties.ts). */
  properties?: readonly string[];
  /** The site's time zone the day was counted in (its local day's bounds); a day of another zone is counted again. */
  timezone: string;
  /** The pairs left out for too many values (rollup-tally.ts, PAIR_VALUES_PER_DAY). */
  omitted?: readonly string[];
  /** The UTC day of the day's first raw partition (`YYYY-MM-DD`), checked before a rollup there is replaced. */
  firstUtc?: string;
}

async function recordSiteDay(run: RunStatement, siteId: string, day: string, record: SiteDayRecord) {
  const { until, snapshot = null, properties = [], timezone, omitted = [] } = record;
  await run(
    // rolled_at from the inserted row rather than now() in the update: Citus takes only immutable functions there.
    `insert into rollup_days (site_id, day, version, rolled_until, snapshot, snapshot_server, rolled_at, properties, timezone,
                              omitted_pairs)
     values ($1::uuid, $2::date, $3::smallint, $4::timestamptz, $5::pg_snapshot, $6::text, now(), $7::text[], $8::text, $9::text[])
     on conflict (site_id, day) do update set rolled_at = excluded.rolled_at, version = excluded.version,
       rolled_until = excluded.rolled_until, snapshot = excluded.snapshot, snapshot_server = excluded.snapshot_server,
       properties = excluded.properties, timezone = excluded.timezone, omitted_pairs = excluded.omitted_pairs`,
    [
      siteId,
      day,
      ROLLUP_VERSION,
      until,
      snapshot?.snapshot ?? null,
      snapshot?.server ?? null,
      [...properties],
      timezone,
      [...omitted],
    ],
  );
}

/**
 * Before a site's time zone changes from `formerZone`: its rollups recorded before they named their zone
 * (migration 20261225090000) were counted in that one. Naming it makes the jobs count those days again in the
 * new zone, and the stats read them raw until then.
 */
export async function nameFormerZone(
  conn: { execute(sql: string, params: unknown[]): Promise<unknown> },
  siteId: string,
  formerZone: string,
) {
  await conn.execute('update rollup_days set timezone = ? where site_id = ? and timezone is null', [formerZone, siteId]);
}
