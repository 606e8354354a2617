// Stats over a generated site: a site of BENCH_PAGEVIEWS pageviews (default 10 million) in 30 days,
// made once with the demo generator and reused while it still holds them; then the summary and a
// filtered top-pages query through the API, beside a plain count(*) over the same rows.
import http from 'node:http';
import type { Orm } from '@us/db';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { addDays, generateTraffic } from '../scripts/seed/generate.ts';
import { progressReporter } from '../scripts/seed/progress.ts';

export const STATS_DAYS = 30;

export interface Latency {
  runs: number;
  p50: number;
  p99: number;
  status?: number;
}

export function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/**
 * Up to `runs` sequential timings of `fn` after one warm-up run; fewer (at least 5) when the warm-up
 * shows that `runs` would take longer than `budgetMs`.
 */
export async function timeRuns(
  runs: number,
  fn: () => Promise<unknown>,
  {
    budgetMs = 180_000,
    before = async () => {},
  }: {
    budgetMs?: number;
    /** Runs untimed before each run. */
    before?: () => Promise<unknown>;
  } = {},
): Promise<Latency> {
  await before();
  const w = performance.now();
  await fn();
  const warm = performance.now() - w;
  const n = Math.max(Math.min(runs, 5), Math.min(runs, Math.floor(budgetMs / Math.max(1, warm))));
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    await before();
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { runs: n, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

export function formatLatency(name: string, l: Latency, note = ''): string {
  return `${name.padEnd(34)} p50 ${l.p50.toFixed(1).padStart(8)} ms   p99 ${l.p99.toFixed(1).padStart(8)} ms   (${l.runs} sequential runs)${note}`;
}

/** The bench site with `pageviews` pageviews in the last 30 days (UTC), generated unless already there. */
export async function ensureStatsSite(orm: Orm, workspaceId: string, pageviews: number, log: (s: string) => void) {
  const em = orm.em.fork();
  const { site } = await ensureSite(em, {
    workspaceId,
    name: `Stats bench ${pageviews}`,
    hostname: 'stats.bench.example',
    timezone: 'UTC',
  });
  const today = new Date().toISOString().slice(0, 10);
  const from = addDays(today, -(STATS_DAYS - 1));
  const conn = orm.em.getConnection();
  const [have] = await conn.execute<{ n: string }[]>(
    'select count(*) as n from pageviews where site_id = ? and day between ? and ?',
    [site.id, from, today],
    'all',
  );
  const n = Number(have?.n ?? 0);
  if (n >= pageviews * 0.9) {
    log(`  reusing the stats bench site: ${n.toLocaleString('en')} pageviews from ${from} to ${today}`);
    return { siteId: site.id, from, to: today, pageviews: n, generatedMs: null as number | null };
  }
  const [any] = await conn.execute<{ n: string }[]>(
    'select count(*) as n from (select 1 from pageviews where site_id = ? limit 1) x',
    [site.id],
    'all',
  );
  if (Number(any?.n ?? 0) > 0) {
    // The bench database holds bench data only: emptying the analytics tables is instant, where deleting
    // millions of rows would take minutes (other bench sites are regenerated when next asked for).
    log(`  the stats bench site has ${n.toLocaleString('en')} pageviews in the last ${STATS_DAYS} days: regenerating it`);
    await conn.execute(
      'truncate pageviews, page_leaves, events, requests, daily_rollups, rollup_days, result_days, day_arrivals',
      [],
      'run',
    );
  }
  log(`  generating ${pageviews.toLocaleString('en')} pageviews over ${STATS_DAYS} days (once; kept in the bench database)`);
  const progress = progressReporter('  generate');
  const result = await generateTraffic(orm, {
    siteId: site.id,
    timezone: 'UTC',
    days: STATS_DAYS,
    pageviews,
    requestsPerPageview: 0.3,
    jobs: Number(process.env.BENCH_JOBS ?? 2),
    seed: 'stats-bench',
    onProgress: (p) => progress.update(p),
  });
  progress.end();
  const r = result.rows;
  const total = r.pageviews + r.page_leaves + r.events + r.requests;
  log(
    `  generated ${r.pageviews.toLocaleString('en')} pageviews, ${r.page_leaves.toLocaleString('en')} leaves, ${r.events.toLocaleString('en')} events, ${r.requests.toLocaleString('en')} requests in ${(result.ms / 1000).toFixed(1)} s (${Math.round((total * 1000) / result.ms).toLocaleString('en')} rows/s)`,
  );
  const t = performance.now();
  // Set the visibility map and statistics now, rather than have autovacuum do it during the timings.
  await conn.execute('vacuum (analyze) pageviews, page_leaves', [], 'run');
  await conn.execute('analyze events, requests', [], 'run');
  log(`  vacuum analyze: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return { siteId: site.id, from, to: today, pageviews: r.pageviews, generatedMs: result.ms };
}

/** GET with a bearer token; resolves with the status (the body is read and dropped). */
export function getStatus(
  baseUrl: string,
  path: string,
  token: string,
  agent: http.Agent,
): Promise<{ status: number; body: string }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        if (body.length < 4096) body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}
