import { randomUUID } from 'node:crypto';
import { leaveOf, type PageLeaveRow, type PageviewRow, pageviewRow, type RequestRow, requestRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { dayAgo, insertRows, noonUtc, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/**
 * The same traffic on a day inside the raw window and on a day older than 90 days (answered from the
 * rollups the job wrote): the stats API answers both alike, so the rollups follow the catalogue format.
 */
const ROLLUP_COUNTS = new Set(['pageviews', 'sessions', 'visitors', 'events', 'requests', 'scroll_depth', 'time_on_page']);

describe('rollup job: rollups answer like the raw rows', () => {
  let f: StatsFixture;
  let siteId: string;
  const old = dayAgo('UTC', 120);
  const recent = dayAgo('UTC', 20);

  function traffic(day: string): { pvs: PageviewRow[]; leaves: PageLeaveRow[]; reqs: RequestRow[] } {
    const tag = randomUUID().slice(0, 8);
    const pv = (hour: number, visitor: string, extra: Partial<PageviewRow> = {}) =>
      pageviewRow(siteId, noonUtc(day, hour), { visitor: `${tag}-${visitor}`, sessionStart: false, ...extra });
    const pvs = [
      pv(8, 'a', { sessionStart: true, referrerHost: 'www.google.com', country: 'DE', path: '/pricing' }),
      pv(9, 'a', { country: 'DE', path: '/docs' }),
      pv(10, 'b', { sessionStart: true, referrerHost: 'news.example', country: 'FR', utmSource: 'mail' }),
      pv(11, 'c', { sessionStart: true, country: null, device: 'mobile' }),
      pv(12, 'd', { sessionStart: true, lane: 'bot', botName: 'Googlebot', botCategory: 'search' }),
    ];
    const leaves = pvs.map((p, i) =>
      leaveOf(p, { at: new Date(p.at.getTime() + 60_000), scrollDepth: 40, timeOnPageMs: 1000 * (i + 1) }),
    );
    const reqs = [200, 404, 200].map((status, i) =>
      requestRow(siteId, noonUtc(day, 6 + i), {
        path: i ? '/x' : '/',
        status,
        lane: i ? 'bot' : 'human',
        kind: i ? 'bot' : 'browser',
      }),
    );
    return { pvs, leaves, reqs };
  }

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    for (const day of [old, recent]) {
      const { pvs, leaves, reqs } = traffic(day);
      await insertRows(f.t.deps.orm, 'pageviews', pvs);
      await insertRows(f.t.deps.orm, 'page_leaves', leaves);
      await insertRows(f.t.deps.orm, 'requests', reqs);
    }
    const run = await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(run.failed).toBe(0);
    // Rolled-up recent days are answered from rollups too; forget the recent day's so it is read raw here.
    await f.t.deps.orm.em.fork().execute('delete from rollup_days where site_id = ? and day = ?', [siteId, recent]);
  });

  it('answers a rolled-up recent day from rollups, with the raw figures', async () => {
    const q = { metrics: 'sessions', by: 'source' };
    const raw = await stats(recent, q).expect(200);
    await f.t.deps.orm.em.fork().execute('insert into rollup_days (site_id, day) values (?, ?)', [siteId, recent]);
    const rolled = await stats(recent, q).expect(200);
    await f.t.deps.orm.em.fork().execute('delete from rollup_days where site_id = ? and day = ?', [siteId, recent]);
    expect(raw.body.source).toBe('raw');
    expect(rolled.body.source).toBe('rollups');
    expect(rolled.body.rows).toEqual(raw.body.rows);
    expect(rolled.body.totals).toEqual(raw.body.totals);
  });
  afterAll(() => f?.close());

  const stats = (day: string, q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, from: day, to: day });

  it.each([
    [{ metrics: 'pageviews' }],
    [{ metrics: 'pageviews', by: 'country' }],
    [{ metrics: 'pageviews', by: 'page' }],
    [{ metrics: 'sessions', by: 'source' }],
    [{ metrics: 'sessions', by: 'device' }],
    [{ metrics: 'pageviews', lane: 'bot', by: 'bot' }],
    [{ metrics: 'requests', by: 'status' }],
    [{ metrics: 'requests', lane: 'human' }],
    [{ metrics: 'pageviews', 'where.country': 'DE' }],
    // Dimension pairs kept in rollups: a table filtered by the other side, both sides filtered, (none).
    [{ metrics: 'pageviews', by: 'page', 'where.country': 'DE' }],
    [{ metrics: 'sessions', by: 'country', 'where.page': '/pricing' }],
    [{ metrics: 'pageviews', 'where.country': 'DE', 'where.device': 'desktop' }],
    [{ metrics: 'pageviews', by: 'source', 'where.device': 'desktop' }],
    [{ metrics: 'pageviews', by: 'page', 'where.country': '(none)' }],
    [{ metrics: 'pageviews', by: 'page', sort: 'time_on_page' }],
    [{ metrics: 'sessions', 'where.page': '/', 'where.device': 'mobile' }],
  ])('%j', async (q) => {
    const raw = await stats(recent, q).expect(200);
    const rolled = await stats(old, q).expect(200);
    expect(raw.body.source).toBe('raw');
    expect(rolled.body.source).toBe('rollups');
    // The counts rollups keep: every one, leave averages (scroll depth, time on page) included.
    const kept = (counts: Record<string, number>, visitors = true) =>
      Object.fromEntries(Object.entries(counts).filter(([k]) => ROLLUP_COUNTS.has(k) && (visitors || k !== 'visitors')));
    const rows = (b: { rows: { value: unknown; counts: Record<string, number> }[] }) =>
      b.rows.map((r) => ({ value: r.value, counts: kept(r.counts) }));
    expect(rows(rolled.body)).toEqual(rows(raw.body));
    expect(kept(rolled.body.totals)).toEqual(kept(raw.body.totals));
  });

  it('summary', async () => {
    const raw = await f.get(`/v1/sites/${siteId}/summary`, { from: recent, to: recent }).expect(200);
    const rolled = await f.get(`/v1/sites/${siteId}/summary`, { from: old, to: old }).expect(200);
    const values = (b: { measures: Record<string, { value: number }> }) =>
      Object.fromEntries(Object.entries(b.measures).map(([k, m]) => [k, m.value]));
    expect(values(rolled.body)).toEqual(values(raw.body));
    expect(values(raw.body)).toMatchObject({ sessions: 3, pageviews: 4, fromSearch: 1, singlePageVisits: 2 });
  });
});
