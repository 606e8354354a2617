import { randomUUID } from 'node:crypto';
import { type Column, COLUMNS, cleanValue, timeValue, uuidValue } from './columns.ts';
import { type AnalyticsDb, type AnalyticsTable, connectionOf, ensuredDays, type SqlConnection, utcDay } from './db.ts';
import { ensurePartitionsForDays } from './partitions.ts';
import type { AnalyticsRows } from './rows.ts';

export type * from './rows.ts';

/** PostgreSQL takes at most 65535 bind parameters per statement; stay well under it. */
export const MAX_PARAMS = 60_000;

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
 * Inserts rows into one raw table with multi-row `insert … values (…),(…)`, chunked under the
 * parameter limit, in one transaction. The partition for each row's UTC day is ensured first (on
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
    return await insertChunks(conn, table, rows, opts);
  } catch (err) {
    // Another node dropped a partition this process believed in: make it again, once, rather than
    // taking a missing partition for bad rows.
    if (!/no partition of relation/.test(String((err as Error)?.message))) throw err;
    await ensure(true);
    return insertChunks(conn, table, rows, opts);
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

async function insertChunks<T extends AnalyticsTable>(
  conn: SqlConnection,
  table: T,
  rows: readonly AnalyticsRows[T][],
  opts: InsertOptions,
): Promise<{ inserted: number; tally: InsertTally[] }> {
  const cols = COLUMNS[table] as readonly Column<Record<string, unknown>>[];
  const width = cols.length + 3;
  const perChunk = Math.max(1, Math.floor(MAX_PARAMS / width));
  const head = `insert into "${table}" ("site_id", "day", "id", ${cols.map(([c]) => `"${c}"`).join(', ')}) values `;
  const tuple = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  let inserted = 0;
  const tally = new Map<string, InsertTally>();
  /** Rows inserted per `siteId|day`. */
  const perDay = new Map<string, number>();
  await conn.transactional(async (trx) => {
    for (let i = 0; i < rows.length; i += perChunk) {
      const chunk = rows.slice(i, i + perChunk);
      const params: unknown[] = [];
      for (const r of chunk) {
        // Cleaned again here: a row buffered by an older version, or built by a caller that skipped the
        // intake, must never make PostgreSQL refuse the batch.
        params.push(
          uuidValue('site_id', r.siteId),
          utcDay(timeValue('at', r.at)),
          r.id == null ? randomUUID() : uuidValue('id', r.id),
        );
        const values = r as unknown as Record<string, unknown>;
        for (const [column, prop, kind] of cols) params.push(cleanValue(column, kind, values[prop]));
      }
      // `returning` lists only the rows the conflict clause did not skip.
      const sql = `with ins as (${head}${chunk.map(() => tuple).join(', ')} on conflict ("site_id", "day", "id") do nothing returning "site_id", "day", "lane", "at")
        select site_id::text as site_id, to_char(day, 'YYYY-MM-DD') as day,
               to_char(date_trunc('month', at at time zone 'UTC'), 'YYYY-MM-DD') as month,
               count(*) filter (where lane = 'human')::int as human, count(*)::int as total
          from ins group by 1, 2, 3`;
      const res = await conn.execute<{ site_id: string; day: string; month: string; human: number; total: number }[]>(
        sql,
        params,
        'all',
        trx,
      );
      for (const row of res) {
        const key = `${row.site_id}|${row.month}`;
        const t = tally.get(key) ?? { siteId: row.site_id, month: row.month, human: 0, total: 0 };
        t.human += Number(row.human);
        t.total += Number(row.total);
        tally.set(key, t);
        inserted += Number(row.total);
        const dayKey = `${row.site_id}|${row.day}`;
        perDay.set(dayKey, (perDay.get(dayKey) ?? 0) + Number(row.total));
      }
    }
    if (ARRIVAL_TABLES.has(table)) await countArrivals(conn, trx, perDay);
    if (opts.afterInsert) await opts.afterInsert([...tally.values()], trx, conn);
  });
  return { inserted, tally: [...tally.values()] };
}
