import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: catalogue, GET /stats and POST /stats/query', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const today = dayAgo('UTC', 0);
    const d3 = dayAgo('UTC', 3);
    const d10 = dayAgo('UTC', 10);
    const now = new Date();
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, noonUtc(d3), { country: 'DE', path: '/a', visitor: 'x1' }),
      pv(siteId, noonUtc(d3, 13), { country: 'DE', path: '/b', visitor: 'x1', sessionStart: false }),
      pv(siteId, noonUtc(d3), { country: 'FR', path: '/a', visitor: 'x2' }),
      pv(siteId, noonUtc(d3), { country: null, path: '/c', visitor: 'x3' }),
      pv(siteId, noonUtc(d3), { country: 'DE', lane: 'bot', visitor: 'b1' }),
      pv(siteId, noonUtc(d10), { country: 'DE', path: '/old', visitor: 'x4' }),
      // today so far
      pv(siteId, new Date(Math.max(Date.parse(`${today}T00:00:01Z`), now.getTime() - 60_000)), { country: 'DE', visitor: 'x5' }),
    ]);
  });
  afterAll(() => f.close());

  it('lists every metric set with default lanes and the top dimensions', async () => {
    const res = await f.get('/v1/stats/catalogue').expect(200);
    expect(Object.keys(res.body.metricSets).sort()).toEqual(['events', 'pageviews', 'requests', 'sessions']);
    expect(res.body.metricSets.pageviews.defaultLane).toBe('human');
    expect(res.body.metricSets.sessions.defaultLane).toBe('human');
    expect(res.body.metricSets.events.defaultLane).toBe('human');
    expect(res.body.metricSets.requests.defaultLane).toBe('bot');
    expect(res.body.metricSets.pageviews.counts).toEqual(['pageviews', 'sessions', 'visitors', 'scroll_depth', 'time_on_page']);
    expect(res.body.metricSets.pageviews.dimensions).toContain('day');
    expect(res.body.metricSets.pageviews.filters).not.toContain('day');
    expect(res.body.topDimensions).toMatchObject({ page: 'sessions', status: 'requests', event: 'events', network: 'requests' });
    expect(res.body.limits).toMatchObject({ batch: 40, defaultDays: 7, rawDays: 90 });
  });

  it('answers a spec in the query string, with where.country and the sort count first', async () => {
    const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', 'where.country': 'DE' }).expect(200);
    expect(res.body).toMatchObject({ metrics: 'pageviews', by: 'page', lane: 'human', timezone: 'UTC', source: 'raw' });
    expect(res.body.to).toBe(dayAgo('UTC', 0));
    expect(res.body.from).toBe(dayAgo('UTC', 6));
    expect(res.body.counts).toEqual(['pageviews', 'sessions', 'visitors', 'scroll_depth', 'time_on_page']);
    expect(res.body.totals).toEqual({ pageviews: 3, sessions: 2, visitors: 2, scroll_depth: 0, time_on_page: 0 });
    expect(res.body.rows).toEqual([
      { value: '/', counts: { pageviews: 1, sessions: 1, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
      { value: '/a', counts: { pageviews: 1, sessions: 1, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
      { value: '/b', counts: { pageviews: 1, sessions: 0, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
    ]);
    expect(res.body.truncated).toBe(false);
    expect(res.body.previous).toBeUndefined();
    expect(res.body.comparison).toBeUndefined();
  });

  it('sorts by another count, limits rows and says truncated; (none) matches no value', async () => {
    const res = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'country', sort: 'visitors', limit: 1 })
      .expect(200);
    expect(res.body.counts).toEqual(['visitors', 'pageviews', 'sessions', 'scroll_depth', 'time_on_page']);
    expect(res.body.rows).toEqual([
      { value: 'DE', counts: { visitors: 2, pageviews: 3, sessions: 2, scroll_depth: 0, time_on_page: 0 } },
    ]);
    expect(res.body.truncated).toBe(true);
    expect(res.body.totals.pageviews).toBe(5);
    const none = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', 'where.country': '(none)' }).expect(200);
    expect(none.body.totals).toEqual({ sessions: 1, visitors: 1 });
    expect(none.body.rows).toEqual([]);
    // An empty value is no value too (raw rows compared it with '' and matched nothing; rollups matched these).
    const empty = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', 'where.country': '' }).expect(200);
    expect(empty.body.totals).toEqual(none.body.totals);
  });

  it('days=1 is today so far; other lanes on request', async () => {
    const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', days: 1 }).expect(200);
    expect(res.body.from).toBe(dayAgo('UTC', 0));
    expect(res.body.totals.sessions).toBe(1);
    const bots = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', lane: 'bot' }).expect(200);
    expect(bots.body.totals.pageviews).toBe(1);
  });

  it('compare=true adds the previous period; POST /stats/query gives the same answer', async () => {
    const query = { metrics: 'pageviews', by: 'country', compare: 'true', days: '7' };
    const got = await f.get(`/v1/sites/${siteId}/stats`, query).expect(200);
    expect(got.body.comparison).toEqual({ available: true, reason: null });
    expect(got.body.previous).toMatchObject({ from: dayAgo('UTC', 13), to: dayAgo('UTC', 7), totals: { pageviews: 1 } });
    expect(got.body.previous.rows).toEqual([
      { value: 'DE', counts: { pageviews: 1, sessions: 1, visitors: 1, scroll_depth: 0, time_on_page: 0 } },
    ]);
    const posted = await f
      .post(`/v1/sites/${siteId}/stats/query`, { metrics: 'pageviews', by: 'country', compare: true, days: 7 })
      .expect(200);
    expect(posted.body).toEqual(got.body);
    const filtered = await f
      .post(`/v1/sites/${siteId}/stats/query`, { metrics: 'pageviews', by: 'page', where: { country: 'DE' } })
      .expect(200);
    const viaQuery = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', 'where.country': 'DE' })
      .expect(200);
    expect(filtered.body).toEqual(viaQuery.body);
  });

  it('by=day gives every local day of the range, zeros filled, in order', async () => {
    const res = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'sessions', by: 'day', days: 5 }).expect(200);
    expect(res.body.rows.map((r: { value: string }) => r.value)).toEqual([4, 3, 2, 1, 0].map((n) => dayAgo('UTC', n)));
    expect(res.body.rows[1].counts).toEqual({ sessions: 3, visitors: 3 });
    expect(res.body.rows[0].counts).toEqual({ sessions: 0, visitors: 0 });
  });

  it('answers 404 for a site of another workspace', async () => {
    const other = await statsFixture();
    try {
      const foreign = await other.site();
      const res = await f.get(`/v1/sites/${foreign}/stats`, { metrics: 'pageviews' }).expect(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      await f.get(`/v1/sites/${foreign}/summary`).expect(404);
      await f.get(`/v1/sites/${foreign}/top/page`).expect(404);
    } finally {
      await other.close();
    }
  });
});
