// Questions the rollups do not keep, answered from raw rows, then asked again once their days are kept
// (kept-days.ts): the answers must be the same, with the store read (its entries emptied, the answer
// changes), after new rows arrive (the changed days read raw), and never kept past a day's value limit
// or for a small site. Generated traffic in Berlin time, so the range's edge UTC days are read raw.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateTraffic } from '../../../scripts/seed/generate.ts';
import { addDays } from '../../../src/analytics/range.ts';
import { keptFills } from '../../../src/core/observe/metrics.ts';
import { keptFillsQueued, keptFillsSettled, keptLimits } from '../../../src/features/stats/kept-days.ts';
import { dayAgo, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

const TZ = 'Europe/Berlin';
const DEFAULTS = { ...keptLimits };

describe('stats: questions kept per day answer as raw rows do', () => {
  let f: StatsFixture;
  let siteId: string;
  const yesterday = dayAgo(TZ, 1);
  const range = { from: addDays(yesterday, -3), to: yesterday };
  // Each names dimensions no rollup row keeps together, so raw rows answer it.
  const questions: Record<string, string>[] = [
    { metrics: 'sessions', by: 'referrer', 'where.country': 'DE' },
    { metrics: 'pageviews', by: 'page', 'where.country': 'DE', 'where.device': 'desktop' },
    { metrics: 'pageviews', by: 'page', sort: 'time_on_page', 'where.browser': 'Chrome', 'where.device': 'mobile' },
    { metrics: 'sessions', by: 'source', 'where.browser': 'Firefox', 'where.country': 'US' },
    { metrics: 'sessions', 'where.country': 'DE', 'where.device': 'desktop', 'where.browser': 'Chrome' },
    { metrics: 'events', by: 'event', 'where.browser': 'Chrome', 'where.country': 'DE' },
    { metrics: 'events', by: 'label', sort: 'value_sum', 'where.device': 'desktop', 'where.country': 'DE' },
  ];
  const ask = (q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { ...q, ...range, limit: 1000 }).expect(200);
  const answers = async () => {
    const out: { rows: unknown; totals: unknown }[] = [];
    // One at a time: a workspace runs at most 8 stats questions at once (429 beyond).
    for (const q of questions) {
      const { rows, totals } = (await ask(q)).body;
      out.push({ rows, totals });
    }
    return out;
  };
  const keptEntries = async (what: 'all' | 'over' = 'all') => {
    const [row] = await f.t.deps.orm.em
      .fork()
      .getConnection()
      .execute<{ n: string }[]>(
        `select count(*) as n from result_days where site_id = ? and kind = 'kept' ${what === 'over' ? `and jsonb_typeof(rows) <> 'array'` : ''}`,
        [siteId],
        'all',
      );
    return Number(row?.n);
  };
  let raw: { rows: unknown; totals: unknown }[];
  // Days kept are past days, whose partitions autovacuum has analyzed; unanalyzed, a fill's plan reads every
  // leave report once per pageview, and its statements hold the raw tables for seconds while other files
  // make partitions of them.
  const analyzed = () => f.t.deps.orm.em.getConnection().execute('analyze pageviews, events, page_leaves', [], 'run');

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({ timezone: TZ });
    await generateTraffic(f.t.deps.orm, { siteId, timezone: TZ, days: 5, pageviews: 6000, jobs: 1, seed: 'kept-days' });
    await analyzed();
    keptLimits.minRows = 1;
    raw = await answers();
    await keptFillsSettled();
  }, 120_000);
  afterEach(() => Object.assign(keptLimits, DEFAULTS, { minRows: 1 }));
  afterAll(async () => {
    Object.assign(keptLimits, DEFAULTS);
    await keptFillsSettled();
    await f?.close();
  });

  it('keeps the days of every question asked, and answers them as raw rows did', async () => {
    // Four local days in Berlin hold three whole UTC days; each question keeps its groups and/or totals.
    expect(await keptEntries()).toBeGreaterThanOrEqual(questions.length * 3);
    const kept = await answers();
    kept.forEach((k, i) => {
      expect(k, JSON.stringify(questions[i])).toEqual(raw[i]);
    });
  });

  // The answers with keeping off: raw rows only.
  const rawAnswer = async (q: Record<string, string>) => {
    keptLimits.minRows = Number.POSITIVE_INFINITY;
    try {
      return (await ask(q)).body;
    } finally {
      keptLimits.minRows = 1;
    }
  };
  const askedElsewhere: Record<string, string>[] = [
    { metrics: 'sessions', by: 'referrer', 'where.country': 'US' },
    { metrics: 'pageviews', by: 'page', 'where.country': 'US', 'where.device': 'mobile' },
    { metrics: 'sessions', 'where.country': 'FR', 'where.device': 'desktop', 'where.browser': 'Firefox' },
    // A value no row holds: every day kept as having none of it.
    { metrics: 'sessions', by: 'referrer', 'where.country': 'ZZ' },
  ];

  it('keeps every value of the filters: a value never asked finds its days kept', async () => {
    const entries = await keptEntries();
    for (const q of askedElsewhere) {
      const queued = keptFillsQueued();
      const { rows, totals } = (await ask(q)).body;
      // Nothing left to keep after the first ask of another value.
      expect(keptFillsQueued(), JSON.stringify(q)).toBe(queued);
      const truth = await rawAnswer(q);
      expect({ rows, totals }, JSON.stringify(q)).toEqual({ rows: truth.rows, totals: truth.totals });
    }
    expect(await keptEntries()).toBe(entries);
    expect((await ask(askedElsewhere[0] as Record<string, string>)).body.rows.length).toBeGreaterThan(0);
  });

  it('keeps only the asked values of a day with more combinations than the limit', async () => {
    const conn = f.t.deps.orm.em.fork().getConnection();
    await conn.execute(`delete from result_days where site_id = ? and kind = 'kept'`, [siteId], 'run');
    keptLimits.dayCombinations = 1;
    const [de, us] = [questions[0], askedElsewhere[0]] as Record<string, string>[];
    await ask(de as Record<string, string>);
    await keptFillsSettled();
    expect(await keptEntries('over')).toBeGreaterThan(0);
    // Germany's days kept, the United States' not: its first ask reads raw rows and keeps its own.
    const queued = keptFillsQueued();
    await ask(de as Record<string, string>);
    expect(keptFillsQueued()).toBe(queued);
    const first = (await ask(us as Record<string, string>)).body;
    expect(keptFillsQueued()).toBe(queued + 1);
    await keptFillsSettled();
    const again = (await ask(us as Record<string, string>)).body;
    expect(keptFillsQueued()).toBe(queued + 1);
    expect(again).toEqual(first);
    expect(again.rows).toEqual((await rawAnswer(us as Record<string, string>)).rows);
  });

  it('counts a failed fill, and answers from raw rows while its days are not kept', async () => {
    const conn = f.t.deps.orm.em.fork().getConnection();
    await conn.execute(`delete from result_days where site_id = ? and kind = 'kept'`, [siteId], 'run');
    const failed = async () => (await keptFills.get()).values.find((v) => v.labels.outcome === 'failed')?.value ?? 0;
    const before = await failed();
    // Not a whole number: PostgreSQL refuses the fill's statement.
    keptLimits.dayCombinations = 1.5;
    const q = questions[0] as Record<string, string>;
    const first = (await ask(q)).body;
    await keptFillsSettled();
    expect(await failed()).toBe(before + 1);
    expect(await keptEntries()).toBe(0);
    expect({ rows: first.rows, totals: first.totals }).toEqual(raw[0]);
  });

  it('keeps a filter on no value for that question alone', async () => {
    const q = { metrics: 'sessions', by: 'page', 'where.referrer': '(none)', 'where.country': 'DE' };
    const first = (await ask(q)).body;
    await keptFillsSettled();
    const queued = keptFillsQueued();
    const again = (await ask(q)).body;
    expect(keptFillsQueued()).toBe(queued);
    expect(again).toEqual(first);
    expect(again.totals).toEqual((await rawAnswer(q)).totals);
    expect(again.rows.length).toBeGreaterThan(0);
  });

  it('keeps every value when an ask reads only some (the exit rates of the exit pages shown)', async () => {
    const exitPages = (limit: number) =>
      f
        .get(`/v1/sites/${siteId}/top/exit_page`, { ...range, 'where.country': 'DE', 'where.device': 'desktop', limit })
        .expect(200);
    keptLimits.minRows = Number.POSITIVE_INFINITY;
    const truth = (await exitPages(10)).body.rows;
    keptLimits.minRows = 1;
    // The first ask keeps the pageviews of its two pages' days; the second reads them for ten pages.
    expect((await exitPages(2)).body.rows).toEqual(truth.slice(0, 2));
    await keptFillsSettled();
    expect((await exitPages(10)).body.rows).toEqual(truth);
    expect(truth.filter((r: { exitRate: number | null }) => r.exitRate !== null).length).toBeGreaterThan(2);
  });

  it('reads the kept days: emptied entries change the answer', async () => {
    const q = questions[0] as Record<string, string>;
    await ask(q);
    await keptFillsSettled();
    const conn = f.t.deps.orm.em.fork().getConnection();
    const saved = await conn.execute(
      `select spec, day, rows from result_days where site_id = ? and kind = 'kept'`,
      [siteId],
      'all',
    );
    await conn.execute(`update result_days set rows = '[]'::jsonb where site_id = ? and kind = 'kept'`, [siteId], 'run');
    try {
      const emptied = (await ask(q)).body;
      const before = raw[0]?.totals as Record<string, number>;
      expect(emptied.totals.sessions).toBeLessThan(before.sessions as number);
    } finally {
      for (const s of saved as { spec: string; day: string; rows: unknown }[]) {
        await conn.execute(
          `update result_days set rows = ?::jsonb where site_id = ? and kind = 'kept' and spec = ? and day = ?`,
          [JSON.stringify(s.rows), siteId, s.spec, s.day],
        );
      }
    }
    expect((await ask(q)).body.totals).toEqual(raw[0]?.totals);
  });

  it('reads the days that got new rows since they were kept raw', async () => {
    await generateTraffic(f.t.deps.orm, { siteId, timezone: TZ, days: 5, pageviews: 1500, jobs: 1, seed: 'kept-days-late' });
    await analyzed();
    const kept = await answers();
    // The same questions with keeping off: raw rows only.
    keptLimits.minRows = Number.POSITIVE_INFINITY;
    const truth = await answers();
    kept.forEach((k, i) => {
      expect(k, JSON.stringify(questions[i])).toEqual(truth[i]);
    });
    expect(truth[0]).not.toEqual(raw[0]);
  });

  it('does not keep a day with more values than the limit: the question stays raw', async () => {
    keptLimits.dayValues = 1;
    const q = { metrics: 'pageviews', by: 'page', 'where.os': 'Windows', 'where.device': 'desktop', 'where.country': 'DE' };
    const first = (await ask(q)).body;
    await keptFillsSettled();
    expect(await keptEntries('over')).toBeGreaterThan(0);
    expect((await ask(q)).body).toEqual(first);
    keptLimits.minRows = Number.POSITIVE_INFINITY;
    expect((await ask(q)).body.rows).toEqual(first.rows);
  });

  it('refuses a filter value that is not text, or longer than any stored value, naming it; the other questions still answer', async () => {
    const query = (where: Record<string, unknown>) =>
      f.post(`/v1/sites/${siteId}/stats/query`, { metrics: 'sessions', by: 'referrer', ...range, where });
    for (const value of [5, ['DE'], { $gt: '' }, null, 'D'.repeat(2049)]) {
      const res = await query({ country: value }).expect(400);
      expect(res.body.field, JSON.stringify(value).slice(0, 40)).toBe('where.country');
    }
    // In a batch, the bad question alone is refused.
    const batch = await f
      .post(`/v1/sites/${siteId}/stats/batch`, {
        queries: {
          bad: { metrics: 'sessions', by: 'referrer', ...range, where: { country: 5 } },
          good: { metrics: 'sessions', by: 'referrer', ...range, where: { country: 'DE' } },
        },
      })
      .expect(200);
    expect(batch.body.bad.error.field).toBe('queries.bad.where.country');
    expect(batch.body.good.rows.length).toBeGreaterThan(0);
  });

  it('keeps nothing for a site below the size that needs it', async () => {
    keptLimits.minRows = DEFAULTS.minRows;
    const small = await f.site({ timezone: TZ });
    await generateTraffic(f.t.deps.orm, { siteId: small, timezone: TZ, days: 3, pageviews: 300, jobs: 1, seed: 'kept-small' });
    await f.get(`/v1/sites/${small}/stats`, { ...questions[0], ...range }).expect(200);
    await keptFillsSettled();
    const [row] = await f.t.deps.orm.em
      .fork()
      .getConnection()
      .execute<{ n: string }[]>(`select count(*) as n from result_days where site_id = ? and kind = 'kept'`, [small], 'all');
    expect(Number(row?.n)).toBe(0);
  });
});
