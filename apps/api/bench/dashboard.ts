// The stats site's rollups and its dashboard as the browser loads it: rolls up the site-days not rolled
// up yet (timed, once), times the rollup of one whole site-day again, and times the dashboard's six reads
// sent at once (summary, the daily series batch, four top tables), unfiltered and with a country filter.
import http from 'node:http';
import type { Orm } from '@us/db';
import { rollupSiteDay, runRollups } from '../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../src/analytics/rollup/rollup-today.ts';
import { type Latency, percentile, STATS_DAYS, timeRuns } from './stats.ts';

/**
 * Rolls up every pending site-day of the site, and today up to the last hour boundary (as the jobs do
 * within minutes of new data); the time it took and how many days.
 */
export async function rollUpSite(orm: Orm, siteId: string) {
  const t = performance.now();
  const run = await runRollups(orm, { siteIds: [siteId], wait: true, maxDays: 1000 });
  const today = await runTodayRollups(orm, { siteIds: [siteId], wait: true });
  return { days: run.rolled + run.empty + today.refreshed, failed: run.failed + today.failed, ms: performance.now() - t };
}

/**
 * Times rolling up one complete site-day, with its pageviews: its first count (`stored` 'none': the day's
 * rollup is deleted before each run, untimed), or counted again over the same rows (`'same'`: a day
 * counted again after a pause or a format change, whose write leaves the rows that did not change).
 */
export async function timeSiteDayRollup(orm: Orm, siteId: string, day: string, runs = 3, stored: 'none' | 'same' = 'none') {
  const conn = orm.em.getConnection();
  const [row] = await conn.execute<{ n: string }[]>(
    'select count(*) as n from pageviews where site_id = ? and day = ?',
    [siteId, day],
    'all',
  );
  const pageviews = Number(row?.n ?? 0);
  const forget = async () => {
    // Without its snapshot the day's record starts no delta (rollup-delta.ts): the day is counted whole. Still a
    // record of a complete day, so the API's own rollup job leaves the day alone.
    await conn.execute('update rollup_days set snapshot = null where site_id = ? and day = ?', [siteId, day], 'run');
    if (stored === 'same') return;
    // Its rows only: without its `rollup_days` record the API's own rollup job would count the day meanwhile.
    await conn.execute('delete from daily_rollups where site_id = ? and day = ?', [siteId, day], 'run');
  };
  const latency = await timeRuns(runs, () => rollupSiteDay(orm, { siteId, timezone: 'UTC', day }), { before: forget });
  return { pageviews, latency };
}

/**
 * Times bringing one site-day kept current up to date (rollup-delta.ts): before each run the day is
 * rolled up whole to `fromHour` (untimed, as today's last step left it; hours may be fractional: 20.75 is
 * 20:45), then timed to `toHour`, or to its end (null: the complete day's rollup an hour after midnight).
 * Also answers the visitors recounted.
 */
export async function timeIncrementalRollup(
  orm: Orm,
  siteId: string,
  day: string,
  fromHour: number,
  toHour: number | null,
  runs = 3,
) {
  const sd = { siteId, timezone: 'UTC', day };
  const at = (h: number) => new Date(Date.parse(`${day}T00:00:00Z`) + h * 3600_000).toISOString();
  const ms: number[] = [];
  let recounted: number | null = null;
  for (let i = 0; i <= runs; i++) {
    await rollupSiteDay(orm, sd, at(fromHour), { rewind: true });
    const t = performance.now();
    const done = await rollupSiteDay(orm, sd, toHour === null ? undefined : at(toHour));
    // The first run warms up (not counted).
    if (i > 0) ms.push(performance.now() - t);
    recounted = done?.recounted ?? null;
  }
  ms.sort((a, b) => a - b);
  return { latency: { runs, p50: percentile(ms, 50), p99: percentile(ms, 99) } satisfies Latency, recounted };
}

function request(baseUrl: string, token: string, agent: http.Agent, path: string, body?: unknown): Promise<number> {
  const url = new URL(path, baseUrl);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        agent,
        method: data ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * The People dashboard's reads for the last 30 days (with the previous period, as the page asks), sent
 * together; resolves with the statuses. `where`: a filter as the page adds it when a row is clicked.
 */
export function dashboardReads(
  baseUrl: string,
  token: string,
  siteId: string,
  where: Record<string, string> = {},
  period: { days: number; by: 'day' | 'week' } = { days: STATS_DAYS, by: 'day' },
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
  const filter = Object.entries(where)
    .map(([k, v]) => `&where.${k}=${encodeURIComponent(v)}`)
    .join('');
  const site = `/v1/sites/${siteId}`;
  const days = `days=${period.days}`;
  const tables = ['source', 'page', 'country', 'device'];
  const read = () =>
    Promise.all([
      request(baseUrl, token, agent, `${site}/summary?${days}${filter}`),
      request(baseUrl, token, agent, `${site}/stats/batch`, {
        queries: { series: { metrics: 'pageviews', by: period.by, compare: true, days: period.days, where } },
      }),
      ...tables.map((t) =>
        request(baseUrl, token, agent, `${site}/top/${t}?${days}&limit=10${t === 'page' ? '&count=pageviews' : ''}${filter}`),
      ),
    ]);
  return { read, close: () => agent.destroy() };
}

/**
 * Times the dashboard's reads; answers that are not 200 are counted. `firstView`: one view timed apart first
 * (`first`, in ms), then `settle` awaited (what that view left to do in the background) before the runs.
 */
export async function timeDashboard(
  baseUrl: string,
  token: string,
  siteId: string,
  runs: number,
  where: Record<string, string> = {},
  period?: Parameters<typeof dashboardReads>[4],
  firstView?: { settle: () => Promise<unknown> },
): Promise<Latency & { bad: number[]; first: number | null }> {
  const d = dashboardReads(baseUrl, token, siteId, where, period);
  const bad: number[] = [];
  const view = async () => {
    for (const status of await d.read()) if (status !== 200) bad.push(status);
  };
  try {
    let first: number | null = null;
    if (firstView) {
      const started = performance.now();
      await view();
      first = performance.now() - started;
      await firstView.settle();
    }
    const l = await timeRuns(runs, view);
    return { ...l, bad, first };
  } finally {
    d.close();
  }
}
