// Sustained ingest: rows through the real path (buffer → flusher → insertRows, as the server runs it)
// until committed, and raw insertRows batches, into the bench database.
import { randomBytes } from 'node:crypto';
import { insertRows, type Orm, type PageviewRow, pageviewRows } from '@us/db';
import pg from 'pg';
import { startIngest } from '../src/analytics/ingest/index.ts';
import { countingInserter } from '../src/features/billing/usage-counters.ts';

const PATHS = ['/', '/pricing', '/products/trail-runner-2', '/blog/marathon-training-plan', '/cart', '/checkout'];
const COUNTRIES = ['DE', 'US', 'GB', 'FR', 'NL'];

/**
 * `n` pageviews of a shop's mixed traffic. Ids and visitor codes keep the sizes real ones have (16 hex
 * characters, 22 base64url), so the bytes sent per row stay those the figures were measured with.
 */
export function shopPageviews(siteId: string, n: number): PageviewRow[] {
  // No id: the buffer (or insertRows) gives each row one, as for collected rows.
  return pageviewRows(siteId, new Date(), n, (i) => ({
    pageviewId: randomBytes(8).toString('hex'),
    visitor: randomBytes(16).toString('base64url'),
    sessionStart: i % 5 < 2,
    path: PATHS[i % PATHS.length]!,
    pageType: null,
    referrerHost: i % 3 === 0 ? 'www.google.com' : null,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    country: COUNTRIES[i % COUNTRIES.length]!,
    asn: 3320,
    asOrg: 'Deutsche Telekom AG',
    device: i % 2 ? 'mobile' : 'desktop',
    windowWidth: i % 2 ? 390 : 1440,
    language: 'en-US',
    timezone: 'Europe/Berlin',
  }));
}

export interface IngestFigures {
  rows: number;
  ms: number;
  committed: number;
}

/** Enqueues the rows into a fresh in-process ingest (as the server starts it); the ms until the last is committed. */
export async function timeIngestPath(orm: Orm, rows: PageviewRow[]): Promise<number> {
  const ingest = await startIngest({ orm, redis: null, insert: countingInserter({ orm }) });
  const t0 = performance.now();
  for (const r of rows) await ingest.enqueue('pageviews', r);
  const last = await ingest.flushNow();
  const ms = performance.now() - t0;
  await ingest.stop();
  if (last.error) throw last.error;
  return ms;
}

/** `n` pageview rows of one site through the ingest path, timed until all are committed. */
export async function ingestPath(orm: Orm, siteId: string, n: number): Promise<IngestFigures> {
  const ms = await timeIngestPath(orm, shopPageviews(siteId, n));
  const [c] = await orm.em
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from pageviews where site_id = ?', [siteId], 'all');
  return { rows: n, ms, committed: Number(c?.n ?? 0) };
}

/** `insertRows` alone, `batch` rows per call, one call after another. */
export async function insertBatches(orm: Orm, siteId: string, n: number, batch: number): Promise<IngestFigures> {
  const rows = shopPageviews(siteId, n);
  await insertRows(orm, 'pageviews', rows.slice(0, 1)); // partition ensured outside the timing
  const t0 = performance.now();
  let committed = 1;
  for (let i = 1; i < rows.length; i += batch) committed += await insertRows(orm, 'pageviews', rows.slice(i, i + batch));
  return { rows: n - 1, ms: performance.now() - t0, committed: committed - 1 };
}

/**
 * The baseline: PostgreSQL inserting rows of the same shape that it makes itself (`insert … select` from
 * generate_series, `batch` rows per statement, time-ordered ids), one statement after another, so no
 * client encodes or sends anything. Measured in the same run, it carries the machine's speed of the day.
 */
export async function postgresAlone(orm: Orm, dbUrl: string, siteId: string, n: number, batch = 5000): Promise<IngestFigures> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  await insertRows(orm, 'pageviews', shopPageviews(siteId, 1)); // partition ensured outside the timing
  const sql = `insert into pageviews (site_id, day, id, at, pageview_id, visitor, session_start, lane, path,
      referrer_host, country, asn, as_org, device, window_width, language, timezone)
    select $1::uuid, (now() at time zone 'UTC')::date, uuidv7(), now(), left(md5(random()::text), 16),
      left(md5(random()::text), 22), i % 5 < 2, 'human', (array${JSON.stringify(PATHS).replace(/"/g, "'")})[1 + i % ${PATHS.length}],
      case when i % 3 = 0 then 'www.google.com' end, (array${JSON.stringify(COUNTRIES).replace(/"/g, "'")})[1 + i % ${COUNTRIES.length}],
      3320, 'Deutsche Telekom AG', case when i % 2 = 1 then 'mobile' else 'desktop' end,
      case when i % 2 = 1 then 390 else 1440 end, 'en-US', 'Europe/Berlin'
    from generate_series(1, $2::int) i`;
  const t0 = performance.now();
  let committed = 0;
  for (let done = 0; done < n; done += batch) {
    committed += (await client.query(sql, [siteId, Math.min(batch, n - done)])).rowCount ?? 0;
  }
  const ms = performance.now() - t0;
  await client.end();
  return { rows: n, ms, committed };
}

export function formatIngest(name: string, f: IngestFigures, baseline?: IngestFigures): string {
  const rate = (f.rows * 1000) / f.ms;
  const lost = f.committed === f.rows ? '' : `   committed ${f.committed} of ${f.rows}!`;
  const ratio = baseline ? `  ${((rate * 100 * baseline.ms) / (baseline.rows * 1000)).toFixed(1)}% of PostgreSQL alone` : '';
  return `${name.padEnd(34)} ${rate.toFixed(0).padStart(7)} rows/s  ${f.rows.toLocaleString('en')} rows in ${(f.ms / 1000).toFixed(2)} s${lost}${ratio}`;
}
