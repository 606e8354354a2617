// "What changed?" over HTTP, against two weeks built with known answers: a partner blog sends 50 more visits
// this week, all to a new guide; the newsletter's 15 visits of last week stopped; 10 visits to / went too.
import type { PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../support/server.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('GET /v1/sites/{id}/changes', () => {
  let f: StatsFixture;
  let siteId: string;

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({
      settings: {
        goals: [
          { id: 'guide', name: 'Guide', type: 'path', match: '/pricing-guide' },
          { id: 'docs', name: 'Docs', type: 'path', match: '/docs/*' },
        ],
      },
    });
    const rows: PageviewRow[] = [];
    const sessions = (n: number, daysAgo: number, extra: Partial<PageviewRow>) => {
      for (let i = 0; i < n; i++) rows.push(pv(siteId, noonUtc(dayAgo('UTC', daysAgo)), extra));
    };
    // Last week (days 7-13 ago): 10 from the blog to /, 20 from news.example to /blog, 15 from the newsletter.
    // This week (days 0-6 ago): 60 from the blog to the new guide, the same 20 from news.example and 5 more to the guide.
    sessions(10, 9, { referrerHost: 'partner-blog.example', path: '/' });
    sessions(20, 10, { referrerHost: 'news.example', path: '/blog' });
    sessions(15, 8, { utmSource: 'newsletter', path: '/offer' });
    sessions(60, 2, { referrerHost: 'partner-blog.example', path: '/pricing-guide' });
    sessions(20, 3, { referrerHost: 'news.example', path: '/blog' });
    sessions(5, 1, { referrerHost: 'news.example', path: '/pricing-guide' });
    await insertRows(f.t.deps.orm, 'pageviews', rows);
  });
  afterAll(() => f?.close());

  const changes = (q: Record<string, string | number> = {}) => f.get(`/v1/sites/${siteId}/changes`, q);

  it('gives both totals and the values that moved most, largest first, each in words', async () => {
    const { body } = await changes({ days: 7 }).expect(200);
    expect(body).toMatchObject({
      metric: 'visits',
      from: dayAgo('UTC', 6),
      to: dayAgo('UTC', 0),
      previousFrom: dayAgo('UTC', 13),
      previousTo: dayAgo('UTC', 7),
      current: 85,
      previous: 45,
      change: 40,
      changePercent: 88.9,
      note: null,
    });
    expect(body.drivers.map((d: { sentence: string }) => d.sentence)).toEqual([
      '+65 visits starting on /pricing-guide',
      '+50 visits from partner-blog.example',
      '+50 visits from partner-blog.example',
      '−15 visits from newsletter',
      '−15 visits starting on /offer',
      '−15 visits with no source (direct)',
      '−10 visits starting on /',
      '+5 visits from news.example',
      '+5 visits from news.example',
    ]);
    expect(body.drivers[1]).toMatchObject({ dimension: 'source', current: 60, previous: 10, change: 50, share: 125 });
    expect(body.drivers[2]).toMatchObject({ dimension: 'referrer', value: 'partner-blog.example' });
    // Every visit came from Germany on a desktop: those split nothing, so they explain nothing.
    expect(body.drivers.some((d: { dimension: string }) => d.dimension === 'country' || d.dimension === 'device')).toBe(false);
    expect(body.dimensions.find((d: { dimension: string }) => d.dimension === 'source')).toEqual({
      dimension: 'source',
      label: 'Source',
      explained: 100,
    });
  });

  it('compares with a custom earlier period, and applies filters to both', async () => {
    const custom = await changes({ days: 7, compareFrom: dayAgo('UTC', 10), compareTo: dayAgo('UTC', 10) }).expect(200);
    expect(custom.body).toMatchObject({
      previousFrom: dayAgo('UTC', 10),
      previousTo: dayAgo('UTC', 10),
      previous: 20,
      current: 85,
    });
    const blog = await changes({ days: 7, 'where.page': '/blog' }).expect(200);
    expect(blog.body).toMatchObject({ current: 20, previous: 20, change: 0, changePercent: 0, drivers: [] });
  });

  // Imported history keeps no pairs of dimensions: filtered, the total read it and the drivers could not (an imported
  // 500 before, drivers of 0 before): the drivers then added up to nothing like the change.
  it('filtered, leaves imported history out of the total as its drivers must, so they add up to the change', async () => {
    const site = await f.site();
    // Within the raw window (a month imported before the script was installed): an older period filtered is refused.
    const before = dayAgo('UTC', 20);
    for (const [dimension, value] of [
      ['', ''],
      ['page', '/blog'],
      ['source', 'news.example'],
    ]) {
      await f.t.deps.orm.em.fork().execute(
        `insert into imported_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors, import_id)
         values (?, ?, 'sessions', ?, ?, 'human', 500, 400, gen_random_uuid())`,
        [site, before, dimension, value],
      );
    }
    const now: PageviewRow[] = [];
    for (let i = 0; i < 20; i++) {
      now.push(pv(site, noonUtc(dayAgo('UTC', 3)), { referrerHost: i < 15 ? 'news.example' : 'other.example', path: '/blog' }));
    }
    await insertRows(f.t.deps.orm, 'pageviews', now);
    const { body } = await f
      .get(`/v1/sites/${site}/changes`, { days: 7, 'where.page': '/blog', compareFrom: before, compareTo: before })
      .expect(200);
    expect(body).toMatchObject({ current: 20, previous: 0, change: 20 });
    const bySource = body.drivers.filter((d: { dimension: string }) => d.dimension === 'source');
    expect(bySource.map((d: { value: string; change: number }) => [d.value, d.change])).toEqual([
      ['news.example', 15],
      ['other.example', 5],
    ]);
    expect(bySource.reduce((n: number, d: { change: number }) => n + d.change, 0)).toBe(body.change);
  });

  it('explains a goal’s completions; a goal over many pages, an unknown goal or none is 400 naming goal', async () => {
    const guide = await changes({ days: 7, metric: 'goal', goal: 'guide' }).expect(200);
    expect(guide.body).toMatchObject({ current: 65, previous: 0, change: 65, changePercent: null });
    expect(guide.body.drivers.map((d: { sentence: string }) => d.sentence).slice(0, 4)).toEqual([
      '+60 Guide completions from partner-blog.example',
      '+60 Guide completions from partner-blog.example',
      '+5 Guide completions from news.example',
      '+5 Guide completions from news.example',
    ]);
    const wrong: Record<string, string>[] = [{ goal: 'docs' }, { goal: 'nope' }, {}];
    for (const q of wrong) {
      const res = await changes({ days: 7, metric: 'goal', ...q }).expect(400);
      expect(res.body.field).toBe('goal');
    }
  });

  it('refuses unknown parameters and filters, and bad periods, naming the field', async () => {
    expect((await changes({ colour: 'red' }).expect(400)).body.field).toBe('colour');
    expect((await changes({ 'where.nope': 'x' }).expect(400)).body.field).toBe('where.nope');
    expect((await changes({ metric: 'sales' }).expect(400)).body.field).toBe('metric');
    expect((await changes({ compareTo: dayAgo('UTC', 9) }).expect(400)).body.field).toBe('compareFrom');
    // Shaped like a day, but not one of the calendar (the fuzzer's find: it was a 500).
    expect((await changes({ days: 173, compareFrom: '2519-32-76' }).expect(400)).body.field).toBe('compareFrom');
    expect((await changes({ compareFrom: '2026-01-01', compareTo: '2026-02-30' }).expect(400)).body.field).toBe('compareTo');
    const backwards = await changes({ compareFrom: dayAgo('UTC', 9), compareTo: dayAgo('UTC', 12) }).expect(400);
    expect(backwards.body.field).toBe('compareTo');
    // A from/to period is bounded as `days` is (ten years made every question of the answer ten years').
    const decade = await changes({ from: '2016-01-01', to: '2025-12-31' }).expect(400);
    expect(decade.body.field).toBe('from');
    expect(decade.body.title).toMatch(/at most 366 days/);
    await changes({ from: '2025-01-01', to: '2025-12-31' }).expect(200);
    // Periods worked out from what was sent that leave the calendar: named as the field that set them (they
    // were named as `from` with a title about a real day, or as `to`, a field never sent).
    const first = await changes({ from: '1970-01-01', to: '1970-01-07' }).expect(400);
    expect(first.body.field).toBe('from');
    expect(first.body.title).toMatch(/period before this one starts before 1970-01-01/);
    expect((await changes({ days: 7, compareFrom: '2199-12-31' }).expect(400)).body.field).toBe('compareFrom');
  });

  it('answers 404 for another workspace’s site and needs analytics:read (403 naming it)', async () => {
    const stranger = await statsFixture();
    try {
      const theirs = await stranger.site();
      await f.get(`/v1/sites/${theirs}/changes`).expect(404);
    } finally {
      await stranger.close();
    }
    const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:read'] });
    const refused = await f.t.request.get(`/v1/sites/${siteId}/changes`).set('Authorization', `Bearer ${token}`).expect(403);
    expect(JSON.stringify(refused.body)).toContain('analytics:read');
  });
});
