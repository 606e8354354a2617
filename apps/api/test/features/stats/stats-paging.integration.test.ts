import { randomUUID } from 'node:crypto';
import { requestRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAgo, insertRollups, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

/** `offset` and `search` page and search the values of a ranked table (the dashboard's full tables). */
describe('stats: paging and searching a ranked table', () => {
  let f: StatsFixture;
  let siteId: string;
  const yesterday = dayAgo('UTC', 1);
  const old = dayAgo('UTC', 120);
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    // Pageviews yesterday: /blog/a 4, /blog/b 3, /Pricing 2, /100%_off 1 (10 in all).
    const at = noonUtc(yesterday);
    const views = (path: string, n: number) =>
      Array.from({ length: n }, (_, i) => pv(siteId, at, { path, visitor: `${path}-${i}` }));
    await insertRows(f.t.deps.orm, 'pageviews', [
      ...views('/blog/a', 4),
      ...views('/blog/b', 3),
      ...views('/Pricing', 2),
      ...views('/100%_off', 1),
    ]);
    await insertRollups(f.t, siteId, [
      { day: old, metricSet: 'pageviews', count: 9, visitors: 9 },
      { day: old, metricSet: 'pageviews', dimension: 'page', value: '/blog/old', count: 5, visitors: 5 },
      { day: old, metricSet: 'pageviews', dimension: 'page', value: '/pricing', count: 4, visitors: 4 },
    ]);
  });
  afterAll(() => f.close());

  const stats = (q: Record<string, string | number | boolean>) => f.get(`/v1/sites/${siteId}/stats`, q);
  const pages = (res: { body: { rows: { value: string; counts: { pageviews: number } }[] } }) =>
    res.body.rows.map((r) => [r.value, r.counts.pageviews]);
  const spec = { metrics: 'pageviews', by: 'page', sort: 'pageviews', from: yesterday, to: yesterday };

  it('offset pages through the ranking; truncated says whether more follow; totals are every value’s', async () => {
    const first = await stats({ ...spec, limit: 2 }).expect(200);
    expect(pages(first)).toEqual([
      ['/blog/a', 4],
      ['/blog/b', 3],
    ]);
    expect(first.body.truncated).toBe(true);
    const second = await stats({ ...spec, limit: 2, offset: 2 }).expect(200);
    expect(pages(second)).toEqual([
      ['/Pricing', 2],
      ['/100%_off', 1],
    ]);
    expect(second.body.truncated).toBe(false);
    expect(second.body.totals.pageviews).toBe(10);
    expect((await stats({ ...spec, limit: 2, offset: 4 }).expect(200)).body.rows).toEqual([]);
  });

  // The defect: counts that are plain row counts (requests) carry their totals on the rows; a search matching
  // nothing or an offset past the end brought no row back, and the totals came back 0.
  it('totals of row counts stay every value’s when no row comes back', async () => {
    const site = await f.site();
    const at = noonUtc(yesterday);
    await insertRows(f.t.deps.orm, 'requests', [
      ...Array.from({ length: 3 }, () =>
        requestRow(site, at, { id: randomUUID(), path: '/wp-login.php', lane: 'bot', kind: 'bot' }),
      ),
      requestRow(site, at, { id: randomUUID(), path: '/robots.txt', lane: 'bot', kind: 'bot' }),
    ]);
    const requests = { metrics: 'requests', lane: 'bot', by: 'path', from: yesterday, to: yesterday };
    const all = await f.get(`/v1/sites/${site}/stats`, requests).expect(200);
    const total = all.body.totals.requests as number;
    expect(total).toBe(4);
    for (const q of [{ search: 'zzz' }, { offset: 5 }] as Record<string, string | number>[]) {
      const res = await f.get(`/v1/sites/${site}/stats`, { ...requests, ...q }).expect(200);
      expect(res.body.rows).toEqual([]);
      expect(res.body.totals.requests).toBe(total);
    }
  });

  it('search keeps values containing the text in any case, wildcards taken literally; totals unchanged', async () => {
    const blog = await stats({ ...spec, search: 'BLOG' }).expect(200);
    expect(pages(blog)).toEqual([
      ['/blog/a', 4],
      ['/blog/b', 3],
    ]);
    expect(blog.body.totals.pageviews).toBe(10);
    expect(pages(await stats({ ...spec, search: 'pric' }).expect(200))).toEqual([['/Pricing', 2]]);
    expect(pages(await stats({ ...spec, search: '%_' }).expect(200))).toEqual([['/100%_off', 1]]);
    expect(pages(await stats({ ...spec, search: '_' }).expect(200))).toEqual([['/100%_off', 1]]);
    expect((await stats({ ...spec, search: 'nowhere' }).expect(200)).body.rows).toEqual([]);
    const paged = await stats({ ...spec, search: 'blog', limit: 1, offset: 1 }).expect(200);
    expect(pages(paged)).toEqual([['/blog/b', 3]]);
  });

  it('works the same over rolled-up days, and in the JSON query', async () => {
    const rolled = await stats({ ...spec, from: old, to: old, search: 'pri' }).expect(200);
    expect(rolled.body.source).toBe('rollups');
    expect(pages(rolled)).toEqual([['/pricing', 4]]);
    const both = await f
      .post(`/v1/sites/${siteId}/stats/query`, { ...spec, from: old, to: yesterday, search: 'pricing', limit: 1, offset: 1 })
      .expect(200);
    expect(pages(both)).toEqual([['/Pricing', 2]]);
  });

  it('refuses them where they mean nothing, naming the field', async () => {
    const byDay = await stats({ metrics: 'pageviews', by: 'day', offset: 1 }).expect(400);
    expect(byDay.body).toMatchObject({ field: 'offset', title: expect.stringContaining('ranked table') });
    expect((await stats({ metrics: 'pageviews', search: 'x' }).expect(400)).body.field).toBe('search');
    expect((await stats({ ...spec, offset: 2, compare: true }).expect(400)).body.field).toBe('compare');
    expect((await stats({ ...spec, offset: -1 }).expect(400)).body.field).toBe('offset');
    expect((await stats({ ...spec, search: 'x'.repeat(201) }).expect(400)).body.field).toBe('search');
  });
});
