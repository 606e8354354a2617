import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../src/analytics/range.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: compare with a custom earlier range (compareFrom/compareTo)', () => {
  let f: StatsFixture;
  let siteId: string;
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, noonUtc(dayAgo('UTC', 1))),
      pv(siteId, noonUtc(dayAgo('UTC', 21))),
      pv(siteId, noonUtc(dayAgo('UTC', 20))),
      pv(siteId, noonUtc(dayAgo('UTC', 20), 14)),
      pv(siteId, noonUtc(dayAgo('UTC', 4))), // just before the period: the default comparison, not the custom one
    ]);
  });
  afterAll(() => f.close());

  const stats = (q: Record<string, string | number>) => f.get(`/v1/sites/${siteId}/stats`, q);

  it('both days: previous is that range, by day its days', async () => {
    const res = await stats({
      metrics: 'sessions',
      by: 'day',
      days: 3,
      compareFrom: dayAgo('UTC', 21),
      compareTo: dayAgo('UTC', 19),
    }).expect(200);
    expect(res.body.comparison).toEqual({ available: true, reason: null });
    expect(res.body.previous.from).toBe(dayAgo('UTC', 21));
    expect(res.body.previous.to).toBe(dayAgo('UTC', 19));
    expect(res.body.previous.totals.sessions).toBe(3);
    expect(
      res.body.previous.rows.map((r: { value: string; counts: { sessions: number } }) => [r.value, r.counts.sessions]),
    ).toEqual([
      [dayAgo('UTC', 21), 1],
      [dayAgo('UTC', 20), 2],
      [dayAgo('UTC', 19), 0],
    ]);
  });

  it('compareFrom alone: as many days as the period', async () => {
    const res = await stats({ metrics: 'sessions', days: 3, compareFrom: dayAgo('UTC', 22) }).expect(200);
    expect([res.body.previous.from, res.body.previous.to]).toEqual([dayAgo('UTC', 22), dayAgo('UTC', 20)]);
    expect(res.body.previous.totals.sessions).toBe(3);
  });

  it('a range before any data is not compared, with the reason', async () => {
    const res = await stats({
      metrics: 'sessions',
      days: 3,
      compareFrom: dayAgo('UTC', 40),
      compareTo: dayAgo('UTC', 30),
    }).expect(200);
    expect(res.body.previous).toBeNull();
    expect(res.body.comparison.reason).toBe(
      `No data before ${dayAgo('UTC', 29)}: the site has recorded since ${dayAgo('UTC', 21)}`,
    );
  });

  it('in a JSON body and a batch entry', async () => {
    const spec = { metrics: 'sessions', days: 3, compareFrom: dayAgo('UTC', 21), compareTo: dayAgo('UTC', 20) };
    const one = await f.post(`/v1/sites/${siteId}/stats/query`, spec).expect(200);
    expect(one.body.previous.totals.sessions).toBe(3);
    const batch = await f
      .post(`/v1/sites/${siteId}/stats/batch`, { queries: { custom: spec, bad: { ...spec, compareFrom: undefined } } })
      .expect(200);
    expect(batch.body.custom.previous.totals.sessions).toBe(3);
    expect(batch.body.bad.error.field).toBe('queries.bad.compareFrom');
  });

  it('the summary compares with it too', async () => {
    const res = await f
      .get(`/v1/sites/${siteId}/summary`, { days: 3, compareFrom: dayAgo('UTC', 21), compareTo: dayAgo('UTC', 20) })
      .expect(200);
    expect([res.body.previousFrom, res.body.previousTo]).toEqual([dayAgo('UTC', 21), dayAgo('UTC', 20)]);
    expect(res.body.measures.sessions).toMatchObject({ value: 1, previous: 3 });
    const refused = await f.get(`/v1/sites/${siteId}/summary`, { days: 3, compareTo: dayAgo('UTC', 20) }).expect(400);
    expect(refused.body.field).toBe('compareFrom');
  });

  describe('refusals name the field', () => {
    const refused = async (query: Record<string, string | number>, field: string, title: RegExp) => {
      const res = await stats({ metrics: 'sessions', days: 3, ...query }).expect(400);
      expect(res.body.field).toBe(field);
      expect(res.body.title).toMatch(title);
    };
    it('compareTo without compareFrom', () =>
      refused({ compareTo: dayAgo('UTC', 20) }, 'compareFrom', /together with compareTo/));
    it('not a calendar day', () => refused({ compareFrom: '2025-02-30' }, 'compareFrom', /real calendar day/));
    it('not YYYY-MM-DD', () => refused({ compareFrom: dayAgo('UTC', 20), compareTo: 'last week' }, 'compareTo', /YYYY-MM-DD/));
    it('compareTo before compareFrom', () =>
      refused({ compareFrom: dayAgo('UTC', 20), compareTo: dayAgo('UTC', 21) }, 'compareTo', /on or after/));
    it('a range reaching into the period', () =>
      refused({ compareFrom: dayAgo('UTC', 5), compareTo: dayAgo('UTC', 1) }, 'compareTo', /before the period/));
    it('compareFrom alone reaching into the period', () =>
      refused({ compareFrom: dayAgo('UTC', 3) }, 'compareFrom', /before the period/));
    it('longer than the most days', () =>
      refused(
        { compareFrom: addDays(dayAgo('UTC', 10), -3700), compareTo: dayAgo('UTC', 10) },
        'compareFrom',
        /at most 3660 days/,
      ));
    it('with offset', () =>
      refused({ by: 'country', offset: 10, compareFrom: dayAgo('UTC', 20) }, 'compare', /Leave out compare/));
  });
});
