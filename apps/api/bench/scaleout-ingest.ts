// Sustained ingest over many sites: the ingest section's shop pageviews, each site getting its share, in a
// shuffled order (as reports of many sites arrive), through a fresh in-process ingest as the server starts it
// (memory buffer → flusher → the counting insert, `insertRowsTallied`), timed until every row is committed.
import type { Orm, PageviewRow } from '@us/db';
import { mulberry32 } from '../scripts/seed/random.ts';
import { type IngestFigures, shopPageviews, timeIngestPath } from './ingest.ts';
import type { BenchSite } from './scaleout-data.ts';

/** `n` rows spread over the sites in proportion to `shares`, shuffled the same way on every run. */
export function rowsOverSites(sites: BenchSite[], shares: number[], n: number): PageviewRow[] {
  const total = shares.reduce((a, b) => a + b, 0);
  const rows = sites.flatMap((s, i) => shopPageviews(s.id, Math.round((n * (shares[i] ?? 0)) / total)));
  const rand = mulberry32(39);
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [rows[i], rows[j]] = [rows[j] as PageviewRow, rows[i] as PageviewRow];
  }
  return rows;
}

/** Rows of the sites from `day` (UTC) on. */
async function countFrom(orm: Orm, sites: BenchSite[], day: string): Promise<number> {
  const [row] = await orm.em
    .getConnection()
    .execute<{ n: string }[]>(
      'select count(*) as n from pageviews where site_id = any(?::uuid[]) and day >= ?',
      [`{${sites.map((s) => s.id).join(',')}}`, day],
      'all',
    );
  return Number(row?.n ?? 0);
}

/** Enqueues the rows into a fresh ingest and times until the last is committed. */
export async function ingestOverSites(orm: Orm, sites: BenchSite[], rows: PageviewRow[]): Promise<IngestFigures> {
  const day = new Date().toISOString().slice(0, 10);
  const before = await countFrom(orm, sites, day);
  const ms = await timeIngestPath(orm, rows);
  return { rows: rows.length, ms, committed: (await countFrom(orm, sites, day)) - before };
}
