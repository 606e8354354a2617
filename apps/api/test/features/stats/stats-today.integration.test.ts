// The current day rolled up to an hour boundary (analytics/rollup/rollup-today.ts): questions about it read its
// rollup rows plus only the raw rows after the boundary, and answer what the raw rows alone answered.
import { leaveOf, type PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupSiteDay } from '../../../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../../../src/analytics/rollup/rollup-today.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe("stats: today's rollups up to an hour boundary, raw rows after it", () => {
  let f: StatsFixture;
  let siteId: string;
  const today = dayAgo('UTC', 0);
  const at = (hour: number, minute: number) => new Date(noonUtc(today, hour).getTime() + minute * 60_000);
  // Before the boundary (02:00): visitors a and b; after it: visitors c and d, none of them seen before.
  const rows = (): PageviewRow[] => [
    pv(siteId, at(1, 10), { visitor: 'a', path: '/pricing', referrerHost: 'www.google.com' }),
    pv(siteId, at(1, 20), { visitor: 'a', path: '/docs', sessionStart: false }),
    pv(siteId, at(1, 40), { visitor: 'b', country: 'FR', device: 'mobile' }),
    pv(siteId, at(2, 30), { visitor: 'c', path: '/pricing', country: 'FR' }),
    pv(siteId, at(3, 0), { visitor: 'd', path: '/docs', sessionStart: true, utmSource: 'mail' }),
    pv(siteId, at(3, 5), { visitor: 'd', path: '/', sessionStart: false }),
    pv(siteId, at(1, 50), { visitor: 'bot', lane: 'bot', botName: 'Googlebot', botCategory: 'search' }),
  ];
  const questions: Record<string, string>[] = [
    { metrics: 'pageviews' },
    { metrics: 'pageviews', by: 'page' },
    { metrics: 'sessions', by: 'source' },
    { metrics: 'pageviews', by: 'country', 'where.device': 'desktop' },
    { metrics: 'pageviews', by: 'day' },
    { metrics: 'pageviews', lane: 'bot', by: 'bot' },
  ];
  const ask = (q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, from: today, to: today }).expect(200);
  const summary = (where: Record<string, string> = {}) =>
    f.get(`/v1/sites/${siteId}/summary`, { ...where, from: today, to: today }).expect(200);
  // Filtered summaries: one dimension, and a kept pair.
  const filters: Record<string, string>[] = [
    { 'where.country': 'DE' },
    { 'where.country': 'FR', 'where.device': 'mobile' },
    { 'where.page': '/docs' },
  ];
  const measures = (b: { measures: Record<string, { value: number }> }) =>
    Object.fromEntries(Object.entries(b.measures).map(([k, m]) => [k, m.value]));
  let rawAnswers: { body: Record<string, unknown> }[];
  let rawSummary: Record<string, number>;
  let rawFiltered: Record<string, number>[];

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const pvs = rows();
    await insertRows(f.t.deps.orm, 'pageviews', pvs);
    const leaves = pvs.map((p, i) => leaveOf(p, { scrollDepth: 20 + i * 10, timeOnPageMs: 1500 * (i + 1) }));
    await insertRows(f.t.deps.orm, 'page_leaves', leaves);
    rawAnswers = await Promise.all(questions.map(ask));
    rawSummary = measures((await summary()).body);
    rawFiltered = await Promise.all(filters.map(async (w) => measures((await summary(w)).body)));
  });
  afterAll(() => f?.close());

  it('rolls the day up to the last quarter-hour boundary 5 minutes past, once per boundary', async () => {
    const run = await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], now: at(2, 10), wait: true });
    expect(run).toMatchObject({ ran: true, refreshed: 1, failed: 0 });
    const [day] = await f.t.deps.orm.em
      .fork()
      .execute<{ until: string }[]>(
        `select to_char(rolled_until at time zone 'UTC', 'HH24:MI') as until from rollup_days where site_id = ? and day = ?`,
        [siteId, today],
      );
    expect(day?.until).toBe('02:00');
    // Nothing new until the next boundary (02:15) is 5 minutes past, unless the rollup is of an older format.
    expect((await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], now: at(2, 19), wait: true })).refreshed).toBe(0);
    await f.t.deps.orm.em.fork().execute('update rollup_days set version = 1 where site_id = ? and day = ?', [siteId, today]);
    expect((await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], now: at(2, 10), wait: true })).refreshed).toBe(1);
  });

  it.each(questions.map((q, i) => [JSON.stringify(q), i] as const))('%s answers as from raw rows alone', async (_, i) => {
    const res = await ask(questions[i] as Record<string, string>);
    expect(res.body.source).toBe('mixed');
    expect(res.body.rows).toEqual(rawAnswers[i]?.body.rows);
    expect(res.body.totals).toEqual(rawAnswers[i]?.body.totals);
  });

  it('the summary too (sessions, search, single-page visits, visible time)', async () => {
    expect(measures((await summary()).body)).toEqual(rawSummary);
    expect(rawSummary).toMatchObject({ sessions: 4, pageviews: 6, fromSearch: 1, singlePageVisits: 2 });
    for (const [i, w] of filters.entries()) {
      const res = await summary(w);
      expect(res.body.source, JSON.stringify(w)).toBe('mixed');
      expect(measures(res.body), JSON.stringify(w)).toEqual(rawFiltered[i]);
    }
    expect(rawFiltered[0]).toMatchObject({ sessions: 2, pageviews: 4, fromSearch: 1 });
  });

  it("the complete day's rollup replaces it and is not redone by today's job", async () => {
    expect(await rollupSiteDay(f.t.deps.orm, { siteId, timezone: 'UTC', day: today })).not.toBeNull();
    expect((await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], now: at(5, 30), wait: true })).refreshed).toBe(0);
    const res = await ask({ metrics: 'pageviews', by: 'page' });
    expect(res.body.source).toBe('rollups');
    expect(res.body.rows).toEqual(rawAnswers[1]?.body.rows);
  });
});
