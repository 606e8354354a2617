import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/analytics/range.ts';
import { dayAgo, insertRollups, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: days older than 90 come from daily rollups', () => {
  let f: StatsFixture;
  let siteId: string;
  const old = dayAgo('UTC', 120);
  const edge = dayAgo('UTC', 91);
  const inside = dayAgo('UTC', 89);
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRollups(f.t, siteId, [
      { day: old, metricSet: 'pageviews', count: 10, visitors: 8 },
      { day: old, metricSet: 'sessions', count: 6, visitors: 6 },
      { day: old, metricSet: 'pageviews', dimension: 'country', value: 'DE', count: 7, visitors: 5 },
      { day: old, metricSet: 'pageviews', dimension: 'country', value: 'FR', count: 2, visitors: 2 },
      { day: old, metricSet: 'pageviews', dimension: 'country', value: '', count: 1, visitors: 1 },
      { day: old, metricSet: 'sessions', dimension: 'country', value: 'DE', count: 4, visitors: 4 },
      { day: old, metricSet: 'sessions', dimension: 'country', value: 'FR', count: 2, visitors: 2 },
      { day: old, metricSet: 'pageviews', dimension: 'page', value: '/x', count: 10, visitors: 8 },
      { day: old, metricSet: 'pageviews', lane: 'bot', count: 50, visitors: 3 },
      { day: edge, metricSet: 'pageviews', count: 2, visitors: 2 },
      { day: edge, metricSet: 'pageviews', dimension: 'country', value: 'DE', count: 2, visitors: 2 },
    ]);
    // Raw rows older than 90 days are never read: the rollups answer for those days.
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, noonUtc(old), { country: 'DE' }),
      pv(siteId, noonUtc(edge), { country: 'DE' }),
      pv(siteId, noonUtc(inside), { country: 'DE' }),
    ]);
  });
  afterAll(() => f.close());

  const stats = (q: Record<string, string | number>) => f.get(`/v1/sites/${siteId}/stats`, q);

  it('totals of an old day from the totals rows', async () => {
    const res = await stats({ metrics: 'pageviews', from: old, to: old }).expect(200);
    expect(res.body.source).toBe('rollups');
    expect(res.body.totals).toEqual({ pageviews: 10, sessions: 6, visitors: 8, scroll_depth: 0, time_on_page: 0 });
    const bots = await stats({ metrics: 'pageviews', from: old, to: old, lane: 'bot' }).expect(200);
    expect(bots.body.totals.pageviews).toBe(50);
  });

  it('one dimension: by, where, or both on the same dimension; empty values are null', async () => {
    const by = await stats({ metrics: 'pageviews', by: 'country', from: old, to: old }).expect(200);
    expect(by.body.rows).toEqual([
      { value: 'DE', counts: { pageviews: 7, sessions: 4, visitors: 5, scroll_depth: 0, time_on_page: 0 } },
      { value: 'FR', counts: { pageviews: 2, sessions: 2, visitors: 2, scroll_depth: 0, time_on_page: 0 } },
      { value: null, counts: { pageviews: 1, sessions: 0, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
    ]);
    const both = await stats({ metrics: 'pageviews', by: 'country', 'where.country': 'DE', from: old, to: old }).expect(200);
    expect(both.body.totals).toEqual({ pageviews: 7, sessions: 4, visitors: 5, scroll_depth: 0, time_on_page: 0 });
    expect(both.body.rows).toHaveLength(1);
    const none = await stats({ metrics: 'pageviews', 'where.country': '(none)', from: old, to: old }).expect(200);
    expect(none.body.totals.pageviews).toBe(1);
    const daily = await stats({ metrics: 'pageviews', by: 'day', 'where.country': 'FR', from: old, to: addDays(old, 1) }).expect(
      200,
    );
    expect(daily.body.rows).toEqual([
      { value: old, counts: { pageviews: 2, sessions: 2, visitors: 2, scroll_depth: 0, time_on_page: 0 } },
      { value: addDays(old, 1), counts: { pageviews: 0, sessions: 0, visitors: 0, scroll_depth: 0, time_on_page: 0 } },
    ]);
  });

  it('refuses two dimensions that are not a kept pair, and hourly series, beyond 90 days', async () => {
    // Pages by country is a pair the rollups keep; languages by country is not.
    await stats({ metrics: 'pageviews', by: 'page', 'where.country': 'DE', from: old, to: old }).expect(200);
    const two = await stats({ metrics: 'pageviews', by: 'language', 'where.country': 'DE', from: old, to: old }).expect(400);
    expect(two.body.field).toBe('where.country');
    expect(two.body.title).toMatch(/only possible within the last 90 days/);
    const hour = await stats({ metrics: 'pageviews', by: 'hour', from: old, to: old }).expect(400);
    expect(hour.body.field).toBe('by');
    // Within 90 days the same combination is fine.
    await stats({ metrics: 'pageviews', by: 'language', 'where.country': 'DE', from: inside, to: inside }).expect(200);
  });

  it('refuses a pair over old days rolled up before pairs were kept (format 1), naming the days', async () => {
    const em = f.t.deps.orm.em.fork();
    await em.execute('insert into rollup_days (site_id, day, version) values (?, ?, 1)', [siteId, old]);
    try {
      const q = { metrics: 'pageviews', by: 'page', 'where.country': 'DE', from: old, to: edge };
      const res = await stats(q).expect(400);
      expect(res.body.field).toBe('where.country');
      expect(res.body.title).toContain(`Days from ${old} to ${edge} were rolled up before two dimensions together were kept`);
      // One dimension is in every format.
      await stats({ metrics: 'pageviews', by: 'country', from: old, to: edge }).expect(200);
      await em.execute('update rollup_days set version = 2 where site_id = ? and day = ?', [siteId, old]);
      await stats(q).expect(200);
    } finally {
      await em.execute('delete from rollup_days where site_id = ? and day = ?', [siteId, old]);
    }
  });

  it('refuses a dimension kept later (screen sizes, time zones) over old days rolled up before it, naming them', async () => {
    const em = f.t.deps.orm.em.fork();
    await em.execute('insert into rollup_days (site_id, day, version) values (?, ?, 4)', [siteId, old]);
    try {
      const by = await stats({ metrics: 'sessions', by: 'screen', from: old, to: edge }).expect(400);
      expect(by.body.field).toBe('by');
      expect(by.body.title).toContain(`Days from ${old} to ${edge} were rolled up before the screen size was kept`);
      const where = await stats({ metrics: 'sessions', 'where.timezone': 'Europe/Berlin', from: old, to: edge }).expect(400);
      expect(where.body.field).toBe('where.timezone');
      expect(where.body.title).toContain('before the time zone was kept: choose days from');
      // Days of the current format answer.
      await em.execute('update rollup_days set version = 5 where site_id = ? and day = ?', [siteId, old]);
      await stats({ metrics: 'sessions', by: 'screen', from: old, to: edge }).expect(200);
    } finally {
      await em.execute('delete from rollup_days where site_id = ? and day = ?', [siteId, old]);
    }
  });

  it('a range across the 90-day line merges raw rows and rollups', async () => {
    const res = await stats({ metrics: 'pageviews', by: 'country', from: edge, to: inside }).expect(200);
    expect(res.body.source).toBe('mixed');
    expect(res.body.totals.pageviews).toBe(3);
    expect(res.body.rows).toEqual([
      { value: 'DE', counts: { pageviews: 3, sessions: 1, visitors: 3, scroll_depth: 0, time_on_page: 0 } },
    ]);
    const days = await stats({ metrics: 'pageviews', by: 'day', from: edge, to: inside }).expect(200);
    expect(days.body.rows.map((r: { counts: { pageviews: number } }) => r.counts.pageviews)).toEqual([2, 0, 1]);
  });

  it('compare finds rollup data before the period', async () => {
    const res = await stats({ metrics: 'pageviews', from: edge, to: inside, compare: 'true' }).expect(200);
    expect(res.body.comparison.available).toBe(true);
    expect(res.body.previous.from).toBe(addDays(edge, -3));
  });
});
