// The same stats questions over the same generated traffic (the demo generator, a site in Berlin time),
// asked before any rollup exists (raw rows only) and after the rollup jobs ran (complete days, and today
// up to an hour boundary): the answers must not change. Covers dimensions, kept pairs, leave averages,
// sorts, lanes, filtered and unfiltered summaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTraffic } from '../../../scripts/seed/generate.ts';
import { addDays } from '../../../src/analytics/range.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../../../src/analytics/rollup/rollup-today.ts';
import { dayAgo, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

const TZ = 'Europe/Berlin';

type Counts = Record<string, number>;
type StatsRow = { value: string | null; counts: Counts };
/**
 * Every count but visitors: today's visitors seen on both sides of the rollup's boundary count twice (docs/product/stats.md,
 * "Older than 90 days": today's rollup).
 */
const withoutVisitors = (c: Counts) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'visitors'));

describe('stats: answers before and after rollups, on generated traffic', () => {
  let f: StatsFixture;
  let siteId: string;
  const yesterday = dayAgo(TZ, 1);
  const first = addDays(yesterday, -3);
  const complete = { from: first, to: yesterday };
  const today = { from: dayAgo(TZ, 0), to: dayAgo(TZ, 0) };
  const questions: Record<string, string>[] = [
    { metrics: 'pageviews' },
    { metrics: 'pageviews', by: 'day' },
    { metrics: 'pageviews', by: 'page' },
    { metrics: 'pageviews', by: 'page', sort: 'time_on_page' },
    { metrics: 'pageviews', by: 'country', 'where.device': 'mobile' },
    { metrics: 'pageviews', by: 'source', 'where.page': '/' },
    { metrics: 'sessions', by: 'source' },
    { metrics: 'sessions', by: 'page', 'where.country': 'DE' },
    { metrics: 'sessions', by: 'device', 'where.country': 'US' },
    { metrics: 'sessions', 'where.country': 'DE', 'where.device': 'desktop' },
    { metrics: 'sessions', by: 'screen' },
    { metrics: 'pageviews', by: 'timezone' },
    { metrics: 'sessions', 'where.screen': 'laptop' },
    { metrics: 'sessions', by: 'exit_page' },
    { metrics: 'sessions', by: 'exit_page', 'where.country': 'DE' },
    { metrics: 'sessions', by: 'source', 'where.exit_page': '/' },
    { metrics: 'sessions', by: 'exit_page', 'where.language': 'de-DE' },
    { metrics: 'sessions', by: 'exit_page', 'where.screen': 'mobile' },
    { metrics: 'sessions', by: 'browser' },
    { metrics: 'pageviews', by: 'os_version' },
    { metrics: 'sessions', by: 'browser_version', 'where.browser': 'Safari' },
    { metrics: 'sessions', by: 'exit_page', 'where.os': 'iOS' },
    { metrics: 'events', by: 'browser' },
    { metrics: 'pageviews', lane: 'bot', by: 'bot' },
    { metrics: 'events', by: 'event' },
    { metrics: 'events', by: 'label', sort: 'value_sum' },
    { metrics: 'requests', by: 'status' },
    { metrics: 'requests', lane: 'human', by: 'path' },
  ];
  const summaries: Record<string, string>[] = [{}, { 'where.country': 'DE' }, { 'where.page': '/', 'where.device': 'mobile' }];
  const ask = (q: Record<string, string>, range: { from: string; to: string }) =>
    f.get(`/v1/sites/${siteId}/stats`, { ...q, ...range, limit: 1000 }).expect(200);
  const summary = (where: Record<string, string>, range: { from: string; to: string }) =>
    f.get(`/v1/sites/${siteId}/summary`, { ...where, ...range }).expect(200);
  const measures = (b: { measures: Record<string, { value: number }> }) =>
    Object.fromEntries(Object.entries(b.measures).map(([k, m]) => [k, m.value]));
  let before: { rows: unknown; totals: unknown; source: string }[];
  let beforeSummaries: Record<string, number>[];
  let beforeToday: { rows: StatsRow[]; totals: Counts }[];

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({ timezone: TZ });
    await generateTraffic(f.t.deps.orm, { siteId, timezone: TZ, days: 5, pageviews: 6000, jobs: 1, seed: 'before-after' });
    // One at a time: a workspace runs at most 8 stats questions at once (429 beyond).
    before = [];
    beforeToday = [];
    for (const q of questions) {
      before.push((await ask(q, complete)).body);
      beforeToday.push((await ask(q, today)).body);
    }
    beforeSummaries = [];
    for (const w of summaries) beforeSummaries.push(measures((await summary(w, complete)).body));
    // Two hours ahead, so yesterday is complete (an hour past its end) whenever this runs.
    const run = await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true, now: new Date(Date.now() + 2 * 3600_000) });
    expect(run.failed).toBe(0);
    expect(run.rolled).toBeGreaterThanOrEqual(4);
    await runTodayRollups(f.t.deps.orm, { siteIds: [siteId], wait: true });
  }, 120_000);
  afterAll(() => f?.close());

  it.each(questions.map((q, i) => [JSON.stringify(q), i] as const))('%s: the same answer from rollups', async (_, i) => {
    const q = questions[i] as Record<string, string>;
    const res = await ask(q, complete);
    expect(before[i]?.source).toBe('raw');
    expect(res.body.source).toBe('rollups');
    expect(res.body.rows).toEqual(before[i]?.rows);
    expect(res.body.totals).toEqual(before[i]?.totals);
  });

  it.each(summaries.map((w, i) => [JSON.stringify(w), i] as const))('summary %s: the same measures', async (_, i) => {
    const res = await summary(summaries[i] as Record<string, string>, complete);
    expect(res.body.source).toBe('rollups');
    expect(measures(res.body)).toEqual(beforeSummaries[i]);
  });

  it.each(questions.map((q, i) => [JSON.stringify(q), i] as const))('today %s: the same counts', async (_, i) => {
    const res = await ask(questions[i] as Record<string, string>, today);
    const counts = (b: { rows: StatsRow[]; totals: Counts }) => ({
      rows: b.rows.map((r) => ({ value: r.value, counts: withoutVisitors(r.counts) })),
      totals: withoutVisitors(b.totals),
    });
    expect(counts(res.body)).toEqual(counts(beforeToday[i] as { rows: StatsRow[]; totals: Counts }));
  });
});

describe('stats: days the generator writes as rollups (older than the raw days) keep the later dimensions', () => {
  let f: StatsFixture;
  beforeAll(() => statsFixture().then((x) => (f = x)));
  afterAll(() => f?.close());

  it('exit pages, screen sizes, time zones, browsers, systems and event values come from the generated rollups', async () => {
    const siteId = await f.site({ timezone: TZ });
    await generateTraffic(f.t.deps.orm, { siteId, timezone: TZ, days: 3, rawDays: 1, pageviews: 3000, jobs: 1, seed: 'staged' });
    const range = { from: dayAgo(TZ, 2), to: dayAgo(TZ, 1) };
    const ask = (q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, ...range }).expect(200);
    for (const by of ['exit_page', 'screen', 'timezone', 'browser', 'browser_version', 'os', 'os_version']) {
      const res = await ask({ metrics: 'sessions', by });
      expect(res.body.source, by).toBe('rollups');
      expect(res.body.rows.filter((r: StatsRow) => r.value !== null).length, by).toBeGreaterThan(1);
      expect(res.body.rows.reduce((n: number, r: StatsRow) => n + (r.counts.sessions ?? 0), 0)).toBe(res.body.totals.sessions);
    }
    // The generator gives add_to_cart, begin_checkout and purchase values; other events none.
    const values = await ask({ metrics: 'events', by: 'event', sort: 'value_sum' });
    const valued = values.body.rows.filter((r: StatsRow) => (r.counts.value_sum ?? 0) > 0).map((r: StatsRow) => r.value);
    expect(valued).toContain('add_to_cart');
    expect(valued.filter((v: string) => !['add_to_cart', 'begin_checkout', 'purchase'].includes(v))).toEqual([]);
    expect(values.body.totals.value_sum).toBeGreaterThan(0);
  });
});
