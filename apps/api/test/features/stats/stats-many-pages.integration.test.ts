import { pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupSiteDay, runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { PAIR_VALUES_PER_DAY } from '../../../src/analytics/rollup/rollup-tally.ts';
import { dayAgo, insertRows, noonUtc, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/** `n` pageviews of the site's `day` from 06:00, a second apart, each on a path of its own, by `visitors` visitors. */
const pathPerPageview = (siteId: string, day: string, n: number, visitors: number, prefix: string) =>
  pageviewRows(siteId, noonUtc(day, 6), n, (i) => ({
    at: new Date(noonUtc(day, 6).getTime() + i * 1000),
    visitor: `${day}-${i % visitors}`,
    sessionStart: i < visitors,
    path: `${prefix}${i}`,
    country: i % 3 === 0 ? 'DE' : 'FR',
  }));

/**
 * A site of more pages a day than a pair keeps (PAIR_VALUES_PER_DAY): its rollups leave out the countries by page,
 * so pages where country = DE are read from the raw rows while they last, and refused for older days.
 */
describe('stats: a day of many pages', () => {
  let f: StatsFixture;
  let siteId: string;
  const recent = dayAgo('UTC', 5);
  const old = dayAgo('UTC', 120);

  const manyPages = (day: string) => pathPerPageview(siteId, day, PAIR_VALUES_PER_DAY + 500, 2000, '/product/');

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [...manyPages(recent), ...manyPages(old)]);
  }, 120_000);
  afterAll(() => f?.close());

  const stats = (day: string, q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, from: day, to: day });

  it('answers a pair the day left out from its raw rows, the same as before the rollup', async () => {
    const q = { metrics: 'pageviews', by: 'page', 'where.country': 'DE', limit: '50' };
    const raw = await stats(recent, q).expect(200);
    expect(raw.body.source).toBe('raw');
    // The summary under a filter pair (a page in a country) reads the same pair.
    const pairFilter = { from: recent, to: recent, 'where.country': 'DE', 'where.page': '/product/3' };
    const rawSummary = await f.get(`/v1/sites/${siteId}/summary`, pairFilter).expect(200);
    expect((await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true })).failed).toBe(0);
    const summary = await f.get(`/v1/sites/${siteId}/summary`, pairFilter).expect(200);
    expect(summary.body).toEqual(rawSummary.body);
    // /product/3 is one pageview from Germany.
    expect(summary.body.measures.pageviews.value).toBe(1);

    const after = await stats(recent, q).expect(200);
    expect(after.body.source).toBe('raw');
    expect(after.body.rows).toEqual(raw.body.rows);
    expect(after.body.totals).toEqual(raw.body.totals);
    expect(after.body.rows).toHaveLength(50);
    // One dimension alone still comes from the rollups.
    const pages = await stats(recent, { metrics: 'pageviews', by: 'page' }).expect(200);
    expect(pages.body.source).toBe('rollups');
    expect(pages.body.totals.pageviews).toBe(PAIR_VALUES_PER_DAY + 500);
  });

  it('refuses that pair for days older than the raw rows, naming them', async () => {
    const res = await stats(old, { metrics: 'pageviews', by: 'page', 'where.country': 'DE' }).expect(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(JSON.stringify(res.body)).toContain('where.country');
    expect(JSON.stringify(res.body)).toContain(`Days from ${old} to ${old}`);
    const countries = await stats(old, { metrics: 'pageviews', by: 'country' }).expect(200);
    expect(countries.body.source).toBe('rollups');
  });
});

/**
 * A site sent more values a day than its rollup keeps together (VALUES_PER_DAY, lowered here): a stranger posting new
 * paths all day, or a kept property holding an order number. The day's largest grouping is left out of its rollup,
 * so its top table is read from the raw rows while they last and refused for older days; the others stay.
 */
describe('stats: a day of more values than its rollup keeps', () => {
  let f: StatsFixture;
  let siteId: string;
  const recent = dayAgo('UTC', 6);
  const old = dayAgo('UTC', 121);
  const VALUES = 3_000;

  const manyPaths = (day: string) => pathPerPageview(siteId, day, 2 * VALUES, 500, '/search/');

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [...manyPaths(recent), ...manyPaths(old)]);
  }, 120_000);
  afterAll(() => f?.close());

  const stats = (day: string, q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, from: day, to: day });
  const rollUp = (day: string) =>
    rollupSiteDay(f.t.deps.orm, { siteId, timezone: 'UTC', day }, undefined, { valuesPerDay: VALUES });

  it('answers the grouping the day left out from its raw rows, the same as before the rollup', async () => {
    const q = { metrics: 'pageviews', by: 'page', limit: '20' };
    const raw = await stats(recent, q).expect(200);
    expect(raw.body.source).toBe('raw');
    await rollUp(recent);
    await rollUp(old);
    const [record] = await f.t.deps.orm.em
      .getConnection()
      .execute<{ omitted: string[] }[]>('select omitted_pairs as omitted from rollup_days where site_id = ? and day = ?', [
        siteId,
        recent,
      ]);
    expect(record?.omitted).toContain('page');

    const after = await stats(recent, q).expect(200);
    expect(after.body.source).toBe('raw');
    expect(after.body.rows).toEqual(raw.body.rows);
    expect(after.body.totals).toEqual(raw.body.totals);
    // The day's total and the dimensions it kept come from the rollups.
    const countries = await stats(recent, { metrics: 'pageviews', by: 'country' }).expect(200);
    expect(countries.body.source).toBe('rollups');
    expect(countries.body.totals.pageviews).toBe(2 * VALUES);
  });

  it('refuses it for days older than the raw rows, naming the days and the field', async () => {
    const res = await stats(old, { metrics: 'pageviews', by: 'page' }).expect(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(JSON.stringify(res.body)).toContain('"by"');
    expect(JSON.stringify(res.body)).toContain(`Days from ${old} to ${old}`);
    const summary = await f.get(`/v1/sites/${siteId}/summary`, { from: old, to: old }).expect(200);
    expect(summary.body.measures.pageviews.value).toBe(2 * VALUES);
  });
});
