// The scale-out section's data: many sites in the bench workspace, one of them large, with 30 days of
// generated traffic made once on the single PostgreSQL (the demo generator, set-based SQL) and copied row for
// row into the Citus cluster (COPY out of one, COPY into the other, each site's id mapped to its twin's), so
// both engines hold the same rows.
import { pipeline } from 'node:stream/promises';
import { ensurePartitionsForDays, type Orm } from '@us/db';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { addDays, generateTraffic } from '../scripts/seed/generate.ts';
import { STATS_DAYS } from './stats.ts';

/** The share of all pageviews the large site holds; the other sites share the rest evenly. */
export const LARGE_SHARE = 0.3;

/** Pageviews per site: the first (the large one) `LARGE_SHARE` of `total`, the others the rest evenly. */
export function siteShares(total: number, sites: number): number[] {
  if (sites < 2) return [total];
  const large = Math.round(total * LARGE_SHARE);
  const small = Math.floor((total - large) / (sites - 1));
  return [large, ...Array.from({ length: sites - 1 }, () => small)];
}

export interface BenchSite {
  id: string;
  hostname: string;
}

/** The `count` scale-out sites of the workspace (UTC), created when missing; the first is the large one. */
export async function ensureScaleoutSites(orm: Orm, workspaceId: string, count: number): Promise<BenchSite[]> {
  const em = orm.em.fork();
  const sites: BenchSite[] = [];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(3, '0');
    const hostname = i === 0 ? 'large.scaleout.bench.example' : `s${n}.scaleout.bench.example`;
    const { site } = await ensureSite(em, {
      workspaceId,
      name: i === 0 ? 'Scale-out large' : `Scale-out ${n}`,
      hostname,
      timezone: 'UTC',
    });
    sites.push({ id: site.id, hostname });
  }
  return sites;
}

/** Generates each site's 30 days of traffic (its share of pageviews) with the demo generator. */
export async function generateSites(orm: Orm, sites: BenchSite[], shares: number[], log: (s: string) => void) {
  const t = performance.now();
  const rows = { pageviews: 0, page_leaves: 0, events: 0, requests: 0 };
  for (const [i, site] of sites.entries()) {
    const r = await generateTraffic(orm, {
      siteId: site.id,
      timezone: 'UTC',
      days: STATS_DAYS,
      pageviews: shares[i] ?? 0,
      requestsPerPageview: 0.3,
      jobs: 2,
      seed: `scaleout-${i}`,
    });
    for (const k of Object.keys(rows) as (keyof typeof rows)[]) rows[k] += r.rows[k];
    if ((i + 1) % 25 === 0 || i === sites.length - 1) {
      log(`  generated ${i + 1}/${sites.length} sites: ${rows.pageviews.toLocaleString('en')} pageviews so far`);
    }
  }
  return { rows, ms: performance.now() - t };
}

/** The tables a site's generated traffic lives in (the generator writes no rollups for raw days). */
const COPIED_TABLES = ['pageviews', 'page_leaves', 'events', 'requests', 'day_arrivals'] as const;

/** A table's columns in order, without generated ones (COPY cannot write those). */
async function columnsOf(client: pg.Client, table: string): Promise<string[]> {
  const r = await client.query<{ name: string }>(
    `select column_name::text as name from information_schema.columns
      where table_schema = current_schema() and table_name = $1 and is_generated = 'NEVER'
      order by ordinal_position`,
    [table],
  );
  return r.rows.map((c) => c.name);
}

const uuidLit = (s: string) => {
  if (!/^[0-9a-f-]{36}$/i.test(s)) throw new Error(`not a uuid: ${s}`);
  return `'${s}'::uuid`;
};

/**
 * Copies the sites' rows from `fromUrl` to `toUrl`, the i-th site of `from` becoming the i-th of `to`: one
 * COPY per table, its rows streamed from one database into the other. The raw tables' day partitions are
 * made first, as the generator made them on the source.
 */
export async function copyTraffic(fromUrl: string, toOrm: Orm, toUrl: string, from: BenchSite[], to: BenchSite[]) {
  const today = new Date().toISOString().slice(0, 10);
  const days: Date[] = [];
  for (let k = -STATS_DAYS; k <= 2; k++) days.push(new Date(`${addDays(today, k)}T00:00:00Z`));
  await ensurePartitionsForDays(toOrm, days);
  const mapping = from.map((s, i) => `(${uuidLit(s.id)}, ${uuidLit(to[i]!.id)})`).join(', ');
  const source = new pg.Client({ connectionString: fromUrl });
  const target = new pg.Client({ connectionString: toUrl });
  await source.connect();
  await target.connect();
  const t = performance.now();
  const rows: Record<string, number> = {};
  try {
    for (const table of COPIED_TABLES) {
      const cols = await columnsOf(source, table);
      const select = cols.map((c) => (c === 'site_id' ? 'm.to_id' : `t."${c}"`)).join(', ');
      const out = source.query(
        copyTo(
          `copy (select ${select} from "${table}" t join (values ${mapping}) m(from_id, to_id) on t.site_id = m.from_id) to stdout`,
        ),
      );
      const into = target.query(copyFrom(`copy "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) from stdin`));
      await pipeline(out, into);
      rows[table] = Number(into.rowCount ?? 0);
    }
  } finally {
    await source.end();
    await target.end();
  }
  return { rows, ms: performance.now() - t };
}

/** The site's complete day with the most pageviews (on the single PostgreSQL; Citus holds the same rows). */
export async function busiestDay(orm: Orm, siteId: string): Promise<string> {
  const today = new Date().toISOString().slice(0, 10);
  const [row] = await orm.em
    .getConnection()
    .execute<{ day: string }[]>(
      `select to_char(day, 'YYYY-MM-DD') as day from pageviews where site_id = ? and day < ? group by day order by count(*) desc limit 1`,
      [siteId, today],
      'all',
    );
  if (!row) throw new Error('the large site has no complete day');
  return row.day;
}

/** Sets the visibility map and statistics now, rather than have autovacuum do it during the timings. */
export async function vacuumAnalyze(orm: Orm) {
  const conn = orm.em.getConnection();
  await conn.execute('vacuum (analyze) pageviews, page_leaves', [], 'run');
  await conn.execute('analyze events, requests, day_arrivals', [], 'run');
}
