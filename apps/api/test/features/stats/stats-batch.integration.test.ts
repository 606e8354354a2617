import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../support/server.ts';
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

  it('applies a saved segment in each spec as the single question does; an unknown one is that spec’s error', async () => {
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:write'] });
    await f.t.request
      .post(`/v1/sites/${siteId}/segments`)
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'French', filters: { country: 'FR' } })
      .expect(201);
    const question = { metrics: 'pageviews', by: 'country', segment: 'french' };
    // The where object given too wins over the segment's filter for that dimension.
    const overridden = { ...question, where: { country: 'DE' } };
    const res = await f
      .post(`/v1/sites/${siteId}/stats/batch`, {
        queries: { french: question, german: overridden, nope: { metrics: 'pageviews', segment: 'Nobody saved this' } },
      })
      .expect(200);
    const single = await f.post(`/v1/sites/${siteId}/stats/query`, question).expect(200);
    expect(single.body.rows.map((r: { value: string }) => r.value)).toEqual(['FR']);
    expect(res.body.french).toEqual(single.body);
    expect(res.body.french.totals).toEqual(single.body.totals);
    const unsegmented = await f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'pageviews', by: 'country' }).expect(200);
    expect(res.body.french.totals).not.toEqual(unsegmented.body.totals);
    expect(res.body.german).toEqual((await f.post(`/v1/sites/${siteId}/stats/query`, overridden).expect(200)).body);
    expect(res.body.german.rows.map((r: { value: string }) => r.value)).toEqual(['DE']);
    expect(res.body.nope).toEqual({
      error: { status: 400, code: 'validation', title: expect.stringMatching(/No segment named/), field: 'queries.nope.segment' },
    });
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
