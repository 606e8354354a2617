// Sustained ingest: rows through the real path (buffer → flusher → insertRows, as the server runs it)
// until committed, and raw insertRows batches, into the bench database.
import { randomBytes } from 'node:crypto';
import { insertRows, type Orm, type PageviewRow } from '@us/db';
import { startIngest } from '../src/ingest/index.ts';

const PATHS = ['/', '/pricing', '/products/trail-runner-2', '/blog/marathon-training-plan', '/cart', '/checkout'];
const COUNTRIES = ['DE', 'US', 'GB', 'FR', 'NL'];

export function pageviewRows(siteId: string, n: number): PageviewRow[] {
  const at = new Date();
  // No id: the buffer (or insertRows) gives each row one, as for collected rows.
  return Array.from({ length: n }, (_, i) => ({
    siteId,
    at,
    pageviewId: randomBytes(8).toString('hex'),
    visitor: randomBytes(16).toString('base64url'),
    sessionStart: i % 5 < 2,
    lane: 'human' as const,
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

/** Enqueues `n` pageview rows into a fresh in-process ingest (as the server starts it) and times until all are committed. */
export async function ingestPath(orm: Orm, siteId: string, n: number): Promise<IngestFigures> {
  const rows = pageviewRows(siteId, n);
  const ingest = await startIngest({ orm, redisUrl: null });
  const t0 = performance.now();
  for (const r of rows) await ingest.enqueue('pageviews', r);
  const last = await ingest.flushNow();
  const ms = performance.now() - t0;
  await ingest.stop();
  if (last.error) throw last.error;
  const [c] = await orm.em
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from pageviews where site_id = ?', [siteId], 'all');
  return { rows: n, ms, committed: Number(c?.n ?? 0) };
}

/** `insertRows` alone, `batch` rows per call, one call after another. */
export async function insertBatches(orm: Orm, siteId: string, n: number, batch: number): Promise<IngestFigures> {
  const rows = pageviewRows(siteId, n);
  await insertRows(orm, 'pageviews', rows.slice(0, 1)); // partition ensured outside the timing
  const t0 = performance.now();
  let committed = 1;
  for (let i = 1; i < rows.length; i += batch) committed += await insertRows(orm, 'pageviews', rows.slice(i, i + batch));
  return { rows: n - 1, ms: performance.now() - t0, committed: committed - 1 };
}

export function formatIngest(name: string, f: IngestFigures): string {
  const rate = (f.rows * 1000) / f.ms;
  const lost = f.committed === f.rows ? '' : `   committed ${f.committed} of ${f.rows}!`;
  return `${name.padEnd(34)} ${rate.toFixed(0).padStart(7)} rows/s  ${f.rows.toLocaleString('en')} rows in ${(f.ms / 1000).toFixed(2)} s${lost}`;
}
