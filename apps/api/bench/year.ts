// Section `year` (not in the default list: its data takes long to make): a site with a year of data, its last
// 90 days as raw rows and the days before only as daily rollups (as retention leaves a site), generated once and
// kept. Timed: the dashboard view (six reads at once) over 12 months (by week, as the dashboard shows it) and over
// 90 days (by day), beside a plain count(*) of the 90 raw days in the same run. The bench truncates the analytics
// tables when the 30-day stats site needs regenerating: give this section its own BENCH_DATA_DIR.
import type { Orm } from '@us/db';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { addDays, generateTraffic } from '../scripts/seed/generate.ts';
import { progressReporter } from '../scripts/seed/progress.ts';
import { rollUpSite, timeDashboard } from './dashboard.ts';
import { formatLatency, type Latency, timeRuns } from './stats.ts';

const YEAR_DAYS = 365;
const RAW_DAYS = 90;

/** The year bench site: generated unless its raw days and rollups are already there. */
async function ensureYearSite(orm: Orm, workspaceId: string, perDay: number, log: (s: string) => void) {
  const { site } = await ensureSite(orm.em.fork(), {
    workspaceId,
    name: `Year bench ${perDay}`,
    hostname: 'year.bench.example',
    timezone: 'UTC',
  });
  const today = new Date().toISOString().slice(0, 10);
  const conn = orm.em.getConnection();
  const [have] = await conn.execute<{ raw: string; rolled: string }[]>(
    `select (select count(*) from pageviews where site_id = ? and day >= ?) as raw,
            (select count(*) from rollup_days where site_id = ? and day < ?) as rolled`,
    [site.id, addDays(today, -(RAW_DAYS - 1)), site.id, addDays(today, -(RAW_DAYS - 1))],
    'all',
  );
  const raw = Number(have?.raw ?? 0);
  const rolled = Number(have?.rolled ?? 0);
  if (raw >= perDay * RAW_DAYS * 0.8 && rolled >= YEAR_DAYS - RAW_DAYS - 7) {
    log(`  reusing the year bench site: ${raw.toLocaleString('en')} raw pageviews, ${rolled} older days in rollups`);
    return { siteId: site.id, from: addDays(today, -(YEAR_DAYS - 1)), to: today, raw };
  }
  if (raw > 0 || rolled > 0) {
    throw new Error(
      `the year bench site is incomplete (${raw} raw pageviews, ${rolled} rolled-up days): remove ${process.env.BENCH_DATA_DIR ?? '.data/bench'} or use another BENCH_DATA_DIR`,
    );
  }
  log(`  generating ${YEAR_DAYS} days of ${perDay.toLocaleString('en')} pageviews a day (the last ${RAW_DAYS} raw; once)`);
  const progress = progressReporter('  generate');
  const result = await generateTraffic(orm, {
    siteId: site.id,
    timezone: 'UTC',
    days: YEAR_DAYS,
    pageviews: perDay * YEAR_DAYS,
    rawDays: RAW_DAYS,
    requestsPerPageview: 0.3,
    jobs: Number(process.env.BENCH_JOBS ?? 2),
    seed: 'year-bench',
    onProgress: (p) => progress.update(p),
  });
  progress.end();
  log(
    `  generated ${result.rows.pageviews.toLocaleString('en')} raw pageviews and ${result.rows.daily_rollups.toLocaleString('en')} rollup rows of ${result.rolledUpDays} days in ${(result.ms / 1000).toFixed(0)} s`,
  );
  await conn.execute('vacuum (analyze) pageviews, page_leaves', [], 'run');
  await conn.execute('analyze events, requests, daily_rollups', [], 'run');
  return { siteId: site.id, from: result.firstDay, to: result.lastDay, raw: result.rows.pageviews };
}

export async function yearBench(o: {
  orm: Orm;
  api: { url: string; token: string; workspaceId: string };
  perDay: number;
  runs: number;
  log: (s: string) => void;
}): Promise<string[]> {
  const s = await ensureYearSite(o.orm, o.api.workspaceId, o.perDay, o.log);
  // The raw days are rolled up as the job does an hour after each ends (only what is pending).
  const rolled = await rollUpSite(o.orm, s.siteId);
  if (rolled.days) o.log(`  rolled up ${rolled.days} site-days in ${(rolled.ms / 1000).toFixed(1)} s (${rolled.failed} failed)`);
  const count = await timeRuns(o.runs, () =>
    o.orm.em
      .getConnection()
      .execute(
        'select count(*) from pageviews where site_id = ? and day >= ?',
        [s.siteId, addDays(s.to, -(RAW_DAYS - 1))],
        'all',
      ),
  );
  const ofCount = (l: Latency) => `   ${((l.p50 * 100) / count.p50).toFixed(1)}% of plain count(*)`;
  const lines = [
    `a year of data (${o.perDay.toLocaleString('en')} pageviews a day; ${s.raw.toLocaleString('en')} raw pageviews in the last ${RAW_DAYS} days, the rest in rollups):`,
    formatLatency(`  plain count(*) of the ${RAW_DAYS} raw days`, count),
  ];
  for (const [name, period] of [
    ['  dashboard view, 12 months', { days: YEAR_DAYS, by: 'week' }],
    ['  dashboard view, 90 days', { days: RAW_DAYS, by: 'day' }],
  ] as const) {
    const l = await timeDashboard(o.api.url, o.api.token, s.siteId, o.runs, {}, period);
    const bad = l.bad.length ? `   ${l.bad.length} answers not 200: ${[...new Set(l.bad)].join(', ')}` : '';
    lines.push(formatLatency(name, l, `${ofCount(l)}${bad}`));
  }
  return lines;
}
