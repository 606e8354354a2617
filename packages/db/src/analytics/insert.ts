import { randomUUID } from 'node:crypto';
import { type AnalyticsDb, type AnalyticsTable, connectionOf, ensuredDays, type SqlConnection, utcDay } from './db.ts';
import { ensurePartitionsForDays } from './partitions.ts';

/** One pageview as stored. `day` is derived from `at` (UTC); `id` is made when absent. */
export interface PageviewRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  visitor: string;
  sessionStart: boolean;
  lane: 'human' | 'bot' | 'internal';
  path: string;
  pageType?: string | null;
  referrerHost?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  country?: string | null;
  asn?: number | null;
  asOrg?: string | null;
  device: string;
  windowWidth?: number | null;
  language?: string | null;
  timezone?: string | null;
  tls?: string | null;
  botName?: string | null;
  botCategory?: string | null;
}

export interface EventRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  visitor: string;
  lane: 'human' | 'bot' | 'internal';
  path: string;
  name: string;
  label?: string | null;
  value?: number | null;
  kind: 'event' | 'exposure';
  experiment?: string | null;
  variant?: string | null;
  country?: string | null;
  device: string;
}

export interface RequestRow {
  id?: string;
  siteId: string;
  at: Date;
  method: string;
  path: string;
  status: number;
  cache?: string | null;
  durationMs: number;
  lane: 'human' | 'bot' | 'internal';
  kind: 'browser' | 'bot' | 'verified-bot';
  botName?: string | null;
  botCategory?: string | null;
  verified: boolean;
  country?: string | null;
  asn?: number | null;
  asOrg?: string | null;
  tls?: string | null;
  decision?: string | null;
  reason?: string | null;
}

/** The leave report of a pageview: joined to `pageviews` on (site_id, pageview_id). */
export interface PageLeaveRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  lane: 'human' | 'bot' | 'internal';
  /** Deepest scroll position, percent of the page. */
  scrollDepth: number;
  /** Visible time on the page, milliseconds. */
  timeOnPageMs: number;
  interacted: boolean;
}

export interface AnalyticsRows {
  pageviews: PageviewRow;
  events: EventRow;
  requests: RequestRow;
  page_leaves: PageLeaveRow;
}

type Col<R> = readonly [column: string, get: (r: R) => unknown];

const n = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

const COLUMNS: { [T in AnalyticsTable]: readonly Col<AnalyticsRows[T]>[] } = {
  pageviews: [
    ['at', (r) => r.at],
    ['pageview_id', (r) => r.pageviewId],
    ['visitor', (r) => r.visitor],
    ['session_start', (r) => r.sessionStart],
    ['lane', (r) => r.lane],
    ['path', (r) => r.path],
    ['page_type', (r) => n(r.pageType)],
    ['referrer_host', (r) => n(r.referrerHost)],
    ['utm_source', (r) => n(r.utmSource)],
    ['utm_medium', (r) => n(r.utmMedium)],
    ['utm_campaign', (r) => n(r.utmCampaign)],
    ['country', (r) => n(r.country)],
    ['asn', (r) => n(r.asn)],
    ['as_org', (r) => n(r.asOrg)],
    ['device', (r) => r.device],
    ['window_width', (r) => n(r.windowWidth)],
    ['language', (r) => n(r.language)],
    ['timezone', (r) => n(r.timezone)],
    ['tls', (r) => n(r.tls)],
    ['bot_name', (r) => n(r.botName)],
    ['bot_category', (r) => n(r.botCategory)],
  ],
  events: [
    ['at', (r) => r.at],
    ['pageview_id', (r) => r.pageviewId],
    ['visitor', (r) => r.visitor],
    ['lane', (r) => r.lane],
    ['path', (r) => r.path],
    ['name', (r) => r.name],
    ['label', (r) => n(r.label)],
    ['value', (r) => n(r.value)],
    ['kind', (r) => r.kind],
    ['experiment', (r) => n(r.experiment)],
    ['variant', (r) => n(r.variant)],
    ['country', (r) => n(r.country)],
    ['device', (r) => r.device],
  ],
  requests: [
    ['at', (r) => r.at],
    ['method', (r) => r.method],
    ['path', (r) => r.path],
    ['status', (r) => r.status],
    ['cache', (r) => n(r.cache)],
    ['duration_ms', (r) => r.durationMs],
    ['lane', (r) => r.lane],
    ['kind', (r) => r.kind],
    ['bot_name', (r) => n(r.botName)],
    ['bot_category', (r) => n(r.botCategory)],
    ['verified', (r) => r.verified],
    ['country', (r) => n(r.country)],
    ['asn', (r) => n(r.asn)],
    ['as_org', (r) => n(r.asOrg)],
    ['tls', (r) => n(r.tls)],
    ['decision', (r) => n(r.decision)],
    ['reason', (r) => n(r.reason)],
  ],
  page_leaves: [
    ['at', (r) => r.at],
    ['pageview_id', (r) => r.pageviewId],
    ['lane', (r) => r.lane],
    ['scroll_depth', (r) => r.scrollDepth],
    ['time_on_page_ms', (r) => r.timeOnPageMs],
    ['interacted', (r) => r.interacted],
  ],
};

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
  const missing = new Map<string, Date>();
  for (const r of rows) {
    const d = utcDay(r.at);
    if (!ensuredDays.has(d)) missing.set(d, r.at);
  }
  if (missing.size) {
    await ensurePartitionsForDays(conn, [...missing.values()]);
    for (const d of missing.keys()) ensuredDays.add(d);
  }
  return insertChunks(conn, table, rows, opts);
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
  const cols = COLUMNS[table] as readonly Col<AnalyticsRows[T]>[];
  const width = cols.length + 3;
  const perChunk = Math.max(1, Math.floor(MAX_PARAMS / width));
  const head = `insert into "${table}" ("site_id", "day", "id", ${cols.map(([c]) => `"${c}"`).join(', ')}) values `;
  const tuple = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  let inserted = 0;
  const tally = new Map<string, InsertTally>();
  await conn.transactional(async (trx) => {
    for (let i = 0; i < rows.length; i += perChunk) {
      const chunk = rows.slice(i, i + perChunk);
      const params: unknown[] = [];
      for (const r of chunk) {
        params.push(r.siteId, utcDay(r.at), r.id ?? randomUUID());
        for (const [, get] of cols) params.push(get(r));
      }
      // `returning` lists only the rows the conflict clause did not skip.
      const sql = `with ins as (${head}${chunk.map(() => tuple).join(', ')} on conflict ("site_id", "day", "id") do nothing returning "site_id", "lane", "at")
        select site_id::text as site_id, to_char(date_trunc('month', at at time zone 'UTC'), 'YYYY-MM-DD') as month,
               count(*) filter (where lane = 'human')::int as human, count(*)::int as total
          from ins group by 1, 2`;
      const res = await conn.execute<{ site_id: string; month: string; human: number; total: number }[]>(sql, params, 'all', trx);
      for (const row of res) {
        const key = `${row.site_id}|${row.month}`;
        const t = tally.get(key) ?? { siteId: row.site_id, month: row.month, human: 0, total: 0 };
        t.human += Number(row.human);
        t.total += Number(row.total);
        tally.set(key, t);
        inserted += Number(row.total);
      }
    }
    if (opts.afterInsert) await opts.afterInsert([...tally.values()], trx, conn);
  });
  return { inserted, tally: [...tally.values()] };
}
