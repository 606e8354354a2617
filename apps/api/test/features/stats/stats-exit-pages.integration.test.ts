// Exit pages: each visit counted at its last pageview, the same from raw rows, from the complete day's
// rollup, and today (where an hourly rollup cannot know a visit's later pages).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../../../src/analytics/rollup/rollup-today.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: exit pages', () => {
  let f: StatsFixture;
  let siteId: string;
  // Two days ago: day is rolled up only an hour after it ends, so from 00:00 to 01:00 UTC the rollup
  // below would leave it to the raw rows.
  const day = dayAgo('UTC', 2);
  const at = (minute: number) => new Date(noonUtc(day, 10).getTime() + minute * 60_000);
  const stats = (q: Record<string, string | number>) => f.get(`/v1/sites/${siteId}/stats`, { from: day, to: day, ...q });

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [
      // a: two visits, /a → /b → /c, later /a alone.
      pv(siteId, at(0), { visitor: 'a', path: '/a', country: 'DE', referrerHost: 'www.google.com' }),
      pv(siteId, at(1), { visitor: 'a', path: '/b', sessionStart: false }),
      pv(siteId, at(2), { visitor: 'a', path: '/c', sessionStart: false }),
      pv(siteId, at(60), { visitor: 'a', path: '/a', country: 'DE' }),
      // b: /b → /a; the second pageview at the same instant as the start sorts after it.
      pv(siteId, at(5), { visitor: 'b', path: '/b', country: 'FR' }),
      pv(siteId, at(5), { visitor: 'b', path: '/a', sessionStart: false, country: 'FR' }),
      // c: a pageview before the visitor's first session start of the day belongs to no visit.
      pv(siteId, at(7), { visitor: 'c', path: '/late', sessionStart: false }),
      pv(siteId, at(8), { visitor: 'c', path: '/c', country: 'FR' }),
      // A crawler: its lane, not the people's.
      pv(siteId, at(9), { visitor: 'bot', path: '/robots', lane: 'bot', botName: 'Googlebot' }),
    ]);
  });
  afterAll(() => f?.close());

  const expected = {
    totals: { sessions: 4, visitors: 3 },
    rows: [
      { value: '/a', counts: { sessions: 2, visitors: 2 } },
      { value: '/c', counts: { sessions: 2, visitors: 2 } },
    ],
  };

  it('counts each visit at its last page (raw rows), filters by it, and ranks it as a top table', async () => {
    const res = await stats({ metrics: 'sessions', by: 'exit_page' }).expect(200);
    expect(res.body).toMatchObject({ source: 'raw', ...expected });
    // Visits that began on /a ended on /c (the first) and /a (the second, a single page).
    const fromA = await stats({ metrics: 'sessions', by: 'exit_page', 'where.page': '/a' }).expect(200);
    expect(fromA.body.rows.map((r: { value: string }) => r.value)).toEqual(['/a', '/c']);
    // Visits that ended on /a, by where they began, and by country.
    const toA = await stats({ metrics: 'sessions', by: 'page', 'where.exit_page': '/a' }).expect(200);
    expect(toA.body.rows).toEqual([
      { value: '/a', counts: { sessions: 1, visitors: 1 } },
      { value: '/b', counts: { sessions: 1, visitors: 1 } },
    ]);
    const top = await f.get(`/v1/sites/${siteId}/top/exit_page`, { from: day, to: day }).expect(200);
    expect(top.body).toMatchObject({ metrics: 'sessions', count: 'sessions', total: 4 });
    // Exit rate: /a had 3 pageviews (2 ended a visit), /c 2 (both did).
    expect(top.body.rows).toEqual([
      { value: '/a', count: 2, share: 50, exitRate: 66.7 },
      { value: '/c', count: 2, share: 50, exitRate: 100 },
    ]);
    // Under a filter, the pageviews are the filtered ones: France's are /b and /a (b's visit) and /c.
    const france = await f.get(`/v1/sites/${siteId}/top/exit_page`, { from: day, to: day, 'where.country': 'FR' });
    expect(france.body.rows).toEqual([
      { value: '/a', count: 1, share: 50, exitRate: 100 },
      { value: '/c', count: 1, share: 50, exitRate: 100 },
    ]);
    const bots = await stats({ metrics: 'sessions', by: 'exit_page', lane: 'bot' }).expect(200);
    expect(bots.body.rows).toEqual([{ value: '/robots', counts: { sessions: 1, visitors: 1 } }]);
  });

  it('refuses what has no exit page: pageviews, a pageviews count, a summary filter', async () => {
    const pageviews = await stats({ metrics: 'pageviews', by: 'exit_page' }).expect(400);
    expect(pageviews.body.field).toBe('by');
    const count = await f.get(`/v1/sites/${siteId}/top/exit_page`, { from: day, to: day, count: 'pageviews' }).expect(400);
    expect(count.body).toMatchObject({ field: 'count', title: expect.stringContaining('Leave out count: exit_page') });
    const summary = await f.get(`/v1/sites/${siteId}/summary`, { from: day, to: day, 'where.exit_page': '/a' }).expect(400);
    expect(summary.body.field).toBe('where.exit_page');
  });

  it('the complete day’s rollup gives the same exits, alone and beside a country, a source or the entry page', async () => {
    const questions: Record<string, string>[] = [
      { metrics: 'sessions', by: 'exit_page' },
      { metrics: 'sessions', by: 'exit_page', 'where.country': 'FR' },
      { metrics: 'sessions', by: 'source', 'where.exit_page': '/c' },
      { metrics: 'sessions', by: 'exit_page', 'where.page': '/a' },
    ];
    const before = [];
    for (const q of questions) before.push((await stats(q).expect(200)).body);
    const run = await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(run.failed).toBe(0);
    const topBefore = (await f.get(`/v1/sites/${siteId}/top/exit_page`, { from: day, to: day }).expect(200)).body;
    for (const [i, q] of questions.entries()) {
      const after = (await stats(q).expect(200)).body;
      expect(after.source, JSON.stringify(q)).toBe('rollups');
      expect({ rows: after.rows, totals: after.totals }, JSON.stringify(q)).toEqual({
        rows: before[i].rows,
        totals: before[i].totals,
      });
    }
    const topAfter = (await f.get(`/v1/sites/${siteId}/top/exit_page`, { from: day, to: day }).expect(200)).body;
    expect(topAfter.rows).toEqual(topBefore.rows);
    expect(before[1].rows).toEqual([
      { value: '/a', counts: { sessions: 1, visitors: 1 } },
      { value: '/c', counts: { sessions: 1, visitors: 1 } },
    ]);
  });

  it('today: a visit going on past the current rollup counts at its later exit', async () => {
    const today = dayAgo('UTC', 0);
    const todayAt = (hour: number, minute: number) => new Date(noonUtc(today, hour).getTime() + minute * 60_000);
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, todayAt(1, 55), { visitor: 'e', path: '/start' }),
      pv(siteId, todayAt(2, 20), { visitor: 'e', path: '/end', sessionStart: false }),
    ]);
    // Rolled up to 02:15: the rollup saw only /start.
    const run = await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], now: todayAt(2, 30), wait: true });
    expect(run.refreshed).toBe(1);
    const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', by: 'exit_page', from: today, to: today });
    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([{ value: '/end', counts: { sessions: 1, visitors: 1 } }]);
    // Other questions still read the hourly rollup.
    const pages = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', by: 'page', from: today, to: today });
    expect(pages.body.source).toBe('mixed');
  });
});
