import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: refused specs name the field (400 problem+json)', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
  });
  afterAll(() => f.close());

  const refused = async (query: Record<string, string | number>, field: string, title?: RegExp) => {
    const res = await f.get(`/v1/sites/${siteId}/stats`, query).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.field).toBe(field);
    expect(res.body.status).toBe(400);
    if (title) expect(res.body.title).toMatch(title);
    return res.body;
  };

  it('unknown by', () => refused({ metrics: 'pageviews', by: 'shoe' }, 'by', /Group pageviews by one of: .*country/));
  it('by from another set', () => refused({ metrics: 'requests', by: 'page' }, 'by'));
  it('unknown where filter', () =>
    refused({ metrics: 'pageviews', 'where.foo': 'x' }, 'where.foo', /Filter pageviews by one of/));
  it('where on a time dimension', () => refused({ metrics: 'pageviews', 'where.day': '2026-01-01' }, 'where.day'));
  it('unknown sort', () => refused({ metrics: 'sessions', sort: 'pageviews' }, 'sort', /sessions, visitors/));
  it('unknown metric set', () => refused({ metrics: 'clicks' }, 'metrics'));
  it('unknown query parameter', () => refused({ metrics: 'pageviews', colour: 'blue' }, 'colour', /Remove the parameter colour/));
  it('days together with from', () => refused({ metrics: 'pageviews', days: 3, from: '2026-01-01' }, 'days'));
  it('to without from', () => refused({ metrics: 'pageviews', to: '2026-01-01' }, 'from'));
  it('from after to', () => refused({ metrics: 'pageviews', from: '2026-01-05', to: '2026-01-01' }, 'to'));
  it('not a calendar day', () => refused({ metrics: 'pageviews', from: '2026-02-30' }, 'from'));
  it('a day past 2199 (the last days of year 9999 once looped without end)', async () => {
    for (const by of ['day', 'hour', 'week', 'month']) {
      await refused({ metrics: 'pageviews', by, from: '9999-12-30', to: '9999-12-31' }, 'from', /1970-01-01 to 2199-12-31/);
    }
    await refused({ metrics: 'pageviews', by: 'day', from: '2026-01-01', to: '9999-12-31' }, 'to');
    await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'day', days: 1 }).expect(200);
  });
  it('an hourly series over more days than the raw rows keep (hours of ten future years)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await refused(
      { metrics: 'pageviews', by: 'hour', from: today, to: `${Number(today.slice(0, 4)) + 10}-01-01` },
      'by',
      /at most 92 days/,
    );
  });
  it('more than 20 filters', async () => {
    const where = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`where.prop:k${i}`, 'x']));
    await refused({ metrics: 'pageviews', ...where }, 'where', /at most 20 filters/);
    const res = await f.post(`/v1/sites/${siteId}/stats/query`, {
      metrics: 'pageviews',
      where: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`prop:k${i}`, 'x'])),
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('where');
  });
  it('bad lane', () => refused({ metrics: 'pageviews', lane: 'robots' }, 'lane'));
  it('a parameter with an empty name is named, not an empty field', async () => {
    for (const path of [
      `/v1/sites/${siteId}/stats?metrics=pageviews&=1`,
      `/v1/sites/${siteId}/summary?=1`,
      `/v1/sites/${siteId}/top/page?=x`,
    ]) {
      const res = await f.t.request.get(path).set('Authorization', f.auth).expect(400);
      expect(res.body.field).toBe('(empty name)');
      expect(res.body.title).toMatch(/^Remove the parameter \(empty name\)/);
    }
  });

  it('the JSON route refuses the same way, and unknown body fields', async () => {
    const a = await f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'events', by: 'status' }).expect(400);
    expect(a.body.field).toBe('by');
    const b = await f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'events', where: { foo: 'x' } }).expect(400);
    expect(b.body.field).toBe('where.foo');
    const c = await f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'events', colour: 'x' }).expect(400);
    expect(c.body.field).toBe('colour');
  });

  it('summary and top refuse unknown parameters and filters too', async () => {
    expect((await f.get(`/v1/sites/${siteId}/summary`, { colour: 'x' }).expect(400)).body.field).toBe('colour');
    expect((await f.get(`/v1/sites/${siteId}/summary`, { 'where.status': '200' }).expect(400)).body.field).toBe('where.status');
    expect((await f.get(`/v1/sites/${siteId}/top/page`, { 'where.nope': 'x' }).expect(400)).body.field).toBe('where.nope');
  });
});
