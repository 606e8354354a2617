import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: batch', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, noonUtc(dayAgo('UTC', 1)), { country: 'DE' }),
      pv(siteId, noonUtc(dayAgo('UTC', 2)), { country: 'FR' }),
    ]);
  });
  afterAll(() => f.close());

  it('answers each spec on its own; a refused one carries its error', async () => {
    const res = await f
      .post(`/v1/sites/${siteId}/stats/batch`, {
        queries: {
          visits: { metrics: 'sessions' },
          countries: { metrics: 'pageviews', by: 'country', sort: 'pageviews' },
          broken: { metrics: 'pageviews', by: 'shoe' },
          typo: { metrics: 'pageviews', colour: 1 },
        },
      })
      .expect(200);
    expect(Object.keys(res.body)).toEqual(['visits', 'countries', 'broken', 'typo']);
    expect(res.body.visits.totals).toEqual({ sessions: 2, visitors: 2 });
    expect(res.body.countries.rows.map((r: { value: string }) => r.value)).toEqual(['DE', 'FR']);
    expect(res.body.broken).toEqual({
      error: { status: 400, code: 'validation', title: expect.stringMatching(/Group pageviews by/), field: 'queries.broken.by' },
    });
    expect(res.body.typo.error).toMatchObject({ status: 400, field: 'queries.typo.colour' });
    const single = await f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'sessions' }).expect(200);
    expect(res.body.visits).toEqual(single.body);
  });

  it('refuses more than 40 specs', async () => {
    const queries = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`q${i}`, { metrics: 'pageviews' }]));
    const res = await f.post(`/v1/sites/${siteId}/stats/batch`, { queries }).expect(400);
    expect(res.body.field).toBe('queries');
    const forty = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`q${i}`, { metrics: 'pageviews' }]));
    const ok = await f.post(`/v1/sites/${siteId}/stats/batch`, { queries: forty }).expect(200);
    expect(Object.keys(ok.body)).toHaveLength(40);
  });
});
