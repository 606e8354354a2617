import { CompiledQuery } from 'kysely';
import { isUniqueViolation } from '../faults.ts';
import { ARRAY_TYPE, BinaryArrayWriter, type ElementType, giveColumnBuffersBack, takeColumnBuffers } from './binary-array.ts';
import { COLUMNS, type Column, type ColumnKind, cleanColumn, timeValue, uuidValue } from './columns.ts';
import { type AnalyticsDb, type AnalyticsTable, connectionOf, ensuredDays, type SqlConnection, utcDay } from './db.ts';
import { timeOrderedUuid } from './ids.ts';
import { ensurePartitionsForDays } from './partitions.ts';
import type { AnalyticsRows } from './rows.ts';

export type * from './rows.ts';

/** Rows actually inserted (not skipped as duplicates) per site and UTC month of `at`. */
export interface InsertTally {
  siteId: string;
  /** First day of the row's UTC month, `YYYY-MM-DD`. */
  month: string;
  /** Rows with lane `human`. */
  human: number;
  /** All rows. */
  total: number;
}

/** The transaction handle `SqlConnection.transactional` gives its callback. */
export type InsertTransaction = Parameters<Parameters<SqlConnection['transactional']>[0]>[0];

export interface InsertOptions {
  /**
   * Runs inside the insert's transaction after the last chunk, with the tally of the rows that were
   * really inserted (a retried batch whose rows exist tallies nothing). An error rolls the insert back.
   */
  afterInsert?: (tally: InsertTally[], trx: InsertTransaction, conn: SqlConnection) => Promise<void>;
}

/**
 * Inserts rows into one raw table with `insert … select from unnest(…)` (one bound array per column),
 * in one transaction. The partition for each row's UTC day is ensured first (on
 * demand), so a row for a day without a partition is never lost. `on conflict do nothing` on the
 * primary key (site_id, day, id) makes a retried batch harmless. Returns the rows actually inserted.
 * Rows without `id` get a new one here — give rows an id before buffering if you may retry.
 */
export async function insertRows<T extends AnalyticsTable>(
  db: AnalyticsDb,
  table: T,
  rows: readonly AnalyticsRows[T][],
  opts: InsertOptions = {},
): Promise<number> {
  return (await insertRowsTallied(db, table, rows, opts)).inserted;
}

/** `insertRows`, also answering per site and month how many rows (and human rows) were really inserted. */
export async function insertRowsTallied<T extends AnalyticsTable>(
  db: AnalyticsDb,
  table: T,
  rows: readonly AnalyticsRows[T][],
  opts: InsertOptions = {},
): Promise<{ inserted: number; tally: InsertTally[] }> {
  if (!rows.length) return { inserted: 0, tally: [] };
  const conn = connectionOf(db);
  const ensure = async (all: boolean) => {
    const missing = new Map<string, Date>();
    for (const r of rows) {
      const at = timeValue('at', r.at);
      const d = utcDay(at);
      if (all || !ensuredDays.has(d)) missing.set(d, at);
    }
    if (!missing.size) return;
    await ensurePartitionsForDays(conn, [...missing.values()]);
    for (const d of missing.keys()) ensuredDays.add(d);
  };
  await ensure(false);
  try {
    return await insertNewOrSkip(conn, table, rows, opts);
  } catch (err) {
    // Another node dropped a partition this process believed in: make it again, once, rather than
    // taking a missing partition for bad rows.
    if (!/no partition of relation/.test(String((err as Error)?.message))) throw err;
    await ensure(true);
    return insertNewOrSkip(conn, table, rows, opts);
  }
}

/**
 * A plain insert first: almost every batch is rows never stored, and PostgreSQL stores them with less
 * work than with `on conflict` (no speculative insertion, no returned rows to count). A batch holding a
 * row that is already stored (a retried flush, a batch put back after its commit) is refused whole and
 * goes again with `on conflict do nothing`, which counts only the rows it really inserts.
 */
async function insertNewOrSkip<T extends AnalyticsTable>(
  conn: SqlConnection,
  table: T,
  rows: readonly AnalyticsRows[T][],
  opts: InsertOptions,
): Promise<{ inserted: number; tally: InsertTally[] }> {
  try {
    return await insertChunks(conn, table, rows, opts, 'new');
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;

    return insertChunks(conn, table, rows, opts, 'skip-stored');
  }
}

/** The tables whose rows the results routes read: their arrivals are counted per site and day. */
const ARRIVAL_TABLES: ReadonlySet<AnalyticsTable> = new Set(['pageviews', 'events']);

/**
 * Adds the batch's rows to `day_arrivals` (see its migration): one statement at the end of the insert's
 * transaction, in (site, day) order, so two batches counting the same days never wait on each other in
 * opposite orders (no deadlock), and each holds the counters' row locks only until its commit.
 */
async function countArrivals(conn: SqlConnection, trx: InsertTransaction, perDay: ReadonlyMap<string, number>) {
  const entries = [...perDay.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!entries.length) return;
  await conn.execute(
    `insert into day_arrivals (site_id, day, rows)
     select site_id, day, rows from jsonb_to_recordset(?::jsonb) a(site_id uuid, day date, rows bigint)
      order by site_id, day
     on conflict (site_id, day) do update set rows = day_arrivals.rows + excluded.rows`,
    [JSON.stringify(entries.map(([k, rows]) => ({ site_id: k.slice(0, 36), day: k.slice(37), rows })))],
    'run',
    trx,
  );
}

/** Forgets which partitions were ensured (after `dropPartitionsBefore`, or in tests). */
export function forgetEnsuredPartitions(): void {
  ensuredDays.clear();
}

/** The element type a column's binary array holds (`binary-array.ts`), which also names its SQL array type. */
function elementType(kind: ColumnKind): ElementType {
  switch (kind.type) {
    case 'int':
      return 'int8';
    case 'double':
      return 'float8';
    case 'bool':
      return 'bool';
    case 'time':
      return 'timestamptz';
    case 'props':
      return 'jsonb';
    default:
      return 'text';
  }
}

/** The element types of a table's statement parameters: site_id, day and id, then its columns in order. */
function parameterTypes(cols: readonly Column<Record<string, unknown>>[]): ElementType[] {
  return ['uuid', 'date', 'uuid', ...cols.map(([, , kind]) => elementType(kind))];
}

/**
 * Rows prepared between two turns of the event loop. Cleaned and encoded in one go, a busy flush's rows held
 * the loop (and every request waiting on it) often enough to make the collect path's paced p99
 * (docs/performance/history.md, "A lean pacer, and the flush prepared a slice at a time").
 */
const ROWS_PER_TURN = 128;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One statement's parameters (a binary array per column) and what counting the sent rows needs. */
export interface PreparedChunk {
  /** Views of `buffers`: valid until they are given back (`giveColumnBuffersBack`). */
  params: Buffer[];
  buffers: Buffer[];
  rows: number;
  siteIds: string[];
  days: string[];
  lanes: string[];
}

/**
 * Cleans and encodes rows into one binary array per column (`BinaryArrayWriter`), `ROWS_PER_TURN` rows a
 * turn. Cleaned again here: a row buffered by an older version, or built by a caller that skipped the
 * intake, must never make PostgreSQL refuse the batch. Exported for its test.
 */
export async function prepareChunk<T extends AnalyticsTable>(
  table: T,
  chunk: readonly AnalyticsRows[T][],
): Promise<PreparedChunk> {
  const cols = COLUMNS[table] as readonly Column<Record<string, unknown>>[];
  const laneColumn = cols.findIndex(([c]) => c === 'lane');
  const buffers = takeColumnBuffers();
  const writers = parameterTypes(cols).map((type, slot) => new BinaryArrayWriter(type, chunk.length, buffers, slot));
  const siteIds: string[] = new Array(chunk.length);
  const days: string[] = new Array(chunk.length);
  const lanes: string[] = new Array(chunk.length);
  for (let n = 0; n < chunk.length; n++) {
    if (n > 0 && n % ROWS_PER_TURN === 0) await nextTurn();
    const r = chunk[n] as unknown as { siteId: unknown; at: unknown; id?: unknown } & Record<string, unknown>;
    const siteId = uuidValue('site_id', r.siteId);
    const at = timeValue('at', r.at);
    siteIds[n] = siteId;
    days[n] = utcDay(at);
    (writers[0] as BinaryArrayWriter).add(siteId);
    (writers[1] as BinaryArrayWriter).add(at);
    (writers[2] as BinaryArrayWriter).add(r.id == null ? timeOrderedUuid() : uuidValue('id', r.id));
    for (let c = 0; c < cols.length; c++) {
      const value = cleanColumn(cols[c] as Column<Record<string, unknown>>, r);
      if (c === laneColumn) lanes[n] = value as string;
      (writers[c + 3] as BinaryArrayWriter).add(value);
    }
  }
  return { params: writers.map((w) => w.finish()), buffers, rows: chunk.length, siteIds, days, lanes };
}

/** Rows per statement: one array per column whatever the count, so only the statement's size bounds it. */
const ROWS_PER_STATEMENT = 10_000;

/** Counts inserted rows per site and month (`tally`) and per site and day (`perDay`). */
function countInserted(
  tally: Map<string, InsertTally>,
  perDay: Map<string, number>,
  row: { siteId: string; day: string; month: string; human: number; total: number },
) {
  const key = `${row.siteId}|${row.month}`;
  const t = tally.get(key) ?? { siteId: row.siteId, month: row.month, human: 0, total: 0 };
  t.human += row.human;
  t.total += row.total;
  tally.set(key, t);
  const dayKey = `${row.siteId}|${row.day}`;
  perDay.set(dayKey, (perDay.get(dayKey) ?? 0) + row.total);
}

/** Counts rows sent and stored whole, by runs of the same site and day (a batch is mostly one or two). */
function countSent(
  tally: Map<string, InsertTally>,
  perDay: Map<string, number>,
  siteIds: readonly string[],
  days: readonly string[],
  lanes: readonly string[],
) {
  let from = 0;
  for (let n = 1; n <= siteIds.length; n++) {
    if (n < siteIds.length && siteIds[n] === siteIds[from] && days[n] === days[from]) continue;
    const day = days[from] as string;
    let human = 0;
    for (let i = from; i < n; i++) if (lanes[i] === 'human') human++;
    countInserted(tally, perDay, {
      siteId: siteIds[from] as string,
      day,
      month: `${day.slice(0, 7)}-01`,
      human,
      total: n - from,
    });
    from = n;
  }
}

/**
 * Inserts the rows in statements of up to `ROWS_PER_STATEMENT`, in one transaction. `new`: a plain insert
 * (a row already stored refuses the batch: unique violation), every row counted. `skip-stored`:
 * `on conflict do nothing`, counting the rows PostgreSQL says it inserted.
 */
async function insertChunks<T extends AnalyticsTable>(
  conn: SqlConnection,
  table: T,
  rows: readonly AnalyticsRows[T][],
  opts: InsertOptions,
  mode: 'new' | 'skip-stored',
): Promise<{ inserted: number; tally: InsertTally[] }> {
  const cols = COLUMNS[table] as readonly Column<Record<string, unknown>>[];
  // `insert … select from unnest($1::uuid[], $2::date[], …)`: each column's values go as one bound array
  // parameter. (Through MikroORM's execute, parameters are inlined into the SQL text on the client: an escaped
  // literal per value for PostgreSQL to parse again; this is faster: docs/performance/history.md,
  // "The first changes (issue 13)".)
  const types = parameterTypes(cols).map((t) => ARRAY_TYPE[t]);
  const names = ['"site_id"', '"day"', '"id"', ...cols.map(([c]) => `"${c}"`)];
  const insert = `insert into "${table}" (${names.join(', ')})
      select * from unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})`;
  // `skip-stored` counts from the rows it returns, in Node: a data-modifying CTE counting them in SQL would be
  // one statement fewer, but Citus cannot run one that spans shards (docs/operations/scale-out.md, "Citus").
  const sql =
    mode === 'new'
      ? insert
      : `${insert} on conflict ("site_id", "day", "id") do nothing
      returning "site_id"::text as site_id, to_char("day", 'YYYY-MM-DD') as day, "lane" = 'human' as human,
        to_char(date_trunc('month', "at" at time zone 'UTC'), 'YYYY-MM-DD') as month`;
  let inserted = 0;
  const tally = new Map<string, InsertTally>();
  /** Rows inserted per `siteId|day`. */
  const perDay = new Map<string, number>();
  // Prepared before the transaction begins, so its connection and locks are not held while the loop turns.
  const prepared: PreparedChunk[] = [];
  try {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      prepared.push(await prepareChunk(table, rows.slice(i, i + ROWS_PER_STATEMENT)));
    }
    await conn.transactional(async (trx) => {
      for (const chunk of prepared) {
        const res = await trx.executeQuery<{ site_id: string; day: string; month: string; human: boolean }>(
          CompiledQuery.raw(sql, chunk.params),
        );
        if (mode === 'new') {
          // Every row went in (the statement returns nothing): counted from the values sent.
          countSent(tally, perDay, chunk.siteIds, chunk.days, chunk.lanes);
          inserted += chunk.rows;
          continue;
        }
        for (const row of res.rows) {
          countInserted(tally, perDay, {
            siteId: row.site_id,
            day: row.day,
            month: row.month,
            human: row.human ? 1 : 0,
            total: 1,
          });
          inserted += 1;
        }
      }
      if (ARRIVAL_TABLES.has(table)) await countArrivals(conn, trx, perDay);
      if (opts.afterInsert) await opts.afterInsert([...tally.values()], trx, conn);
    });
  } finally {
    // Every statement was answered (or never sent): nothing reads the arrays any more.
    for (const chunk of prepared) giveColumnBuffersBack(chunk.buffers);
  }
  return { inserted, tally: [...tally.values()] };
}
