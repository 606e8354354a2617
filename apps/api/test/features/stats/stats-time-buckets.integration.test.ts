import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, rawStartOf } from '../../../src/analytics/range.ts';
import { dayAgo, insertRollups, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

type Row = { value: string; counts: Record<string, number> };
const pairs = (rows: Row[], count = 'pageviews') => rows.map((r) => [r.value, r.counts[count]]);
/** 0 = Sunday … 6 = Saturday, read from the calendar (not from the code under test). */
const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

describe('stats: series by hour, week and month', () => {
  let f: StatsFixture;
  beforeAll(async () => {
    f = await statsFixture();
  });
  afterAll(() => f.close());

  const stats = (siteId: string, q: Record<string, string | number>) => f.get(`/v1/sites/${siteId}/stats`, q).expect(200);

  it('today and yesterday give 24 local hours each', async () => {
    const siteId = await f.site();
    const yesterday = dayAgo('UTC', 1);
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, noonUtc(yesterday)), pv(siteId, noonUtc(yesterday, 13))]);
    const today = await stats(siteId, { metrics: 'pageviews', by: 'hour', days: 1 });
    expect(today.body.rows.map((r: Row) => r.value)).toEqual(
      Array.from({ length: 24 }, (_, h) => `${dayAgo('UTC', 0)}T${String(h).padStart(2, '0')}:00`),
    );
    const y = await stats(siteId, { metrics: 'pageviews', by: 'hour', from: yesterday, to: yesterday });
    expect(y.body.rows).toHaveLength(24);
    expect(pairs(y.body.rows).filter(([, n]) => n)).toEqual([
      [`${yesterday}T12:00`, 1],
      [`${yesterday}T13:00`, 1],
    ]);
  });

  it('weeks in Asia/Tokyo start on the local Monday; every week of the range is there, never cut by limit', async () => {
    const siteId = await f.site({ timezone: 'Asia/Tokyo' });
    let monday = dayAgo('Asia/Tokyo', 14);
    while (weekday(monday) !== 1) monday = addDays(monday, -1);
    const sunday = addDays(monday, -1);
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${sunday}T14:30:00Z`)), // Sunday 23:30 in Tokyo: the week before
      pv(siteId, new Date(`${sunday}T15:30:00Z`)), // Monday 00:30 in Tokyo, still Sunday in UTC
      pv(siteId, noonUtc(addDays(monday, 6))), // Sunday 21:00 in Tokyo: the same week
    ]);
    const res = await stats(siteId, {
      metrics: 'pageviews',
      by: 'week',
      from: addDays(monday, -14),
      to: addDays(monday, 13),
      limit: 1,
    });
    expect(res.body.source).toBe('raw');
    expect(res.body.truncated).toBe(false);
    expect(pairs(res.body.rows)).toEqual([
      [addDays(monday, -14), 0],
      [addDays(monday, -7), 1],
      [monday, 2],
      [addDays(monday, 7), 0],
    ]);
    expect(res.body.totals.pageviews).toBe(3);
    // A range starting mid-week: its first bucket is still named by that week's Monday.
    const mid = await stats(siteId, { metrics: 'pageviews', by: 'week', from: addDays(monday, -3), to: addDays(monday, 6) });
    expect(pairs(mid.body.rows)).toEqual([
      [addDays(monday, -7), 1],
      [monday, 2],
    ]);
  });

  it('months in Asia/Tokyo: a pageview late on the last UTC day counts in the next local month', async () => {
    const siteId = await f.site({ timezone: 'Asia/Tokyo' });
    let first = dayAgo('Asia/Tokyo', 1);
    while (!first.endsWith('-01')) first = addDays(first, -1);
    const lastOfBefore = addDays(first, -1);
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${lastOfBefore}T14:00:00Z`)), // 23:00 in Tokyo: the month before
      pv(siteId, new Date(`${lastOfBefore}T15:30:00Z`)), // 00:30 on the 1st in Tokyo
    ]);
    const res = await stats(siteId, { metrics: 'pageviews', by: 'month', from: addDays(lastOfBefore, -1), to: first });
    expect(pairs(res.body.rows)).toEqual([
      [lastOfBefore.slice(0, 7), 1],
      [first.slice(0, 7), 1],
    ]);
  });

  describe('from daily rollups (days kept, summed per bucket)', () => {
    let siteId: string;
    beforeAll(async () => {
      siteId = await f.site();
      // 2024-04-29 is a Monday; its week runs into May.
      await insertRollups(f.t, siteId, [
        { day: '2024-03-15', metricSet: 'pageviews', count: 1, visitors: 1 },
        { day: '2024-04-30', metricSet: 'pageviews', count: 3, visitors: 2 },
        { day: '2024-05-02', metricSet: 'pageviews', count: 4, visitors: 3 },
        { day: '2024-05-06', metricSet: 'pageviews', count: 5, visitors: 5 },
      ]);
    });

    it('a week crossing a month: one bucket, visitors the sum of daily visitors', async () => {
      const res = await stats(siteId, { metrics: 'pageviews', by: 'week', from: '2024-04-29', to: '2024-05-19' });
      expect(res.body.source).toBe('rollups');
      expect(pairs(res.body.rows)).toEqual([
        ['2024-04-29', 7],
        ['2024-05-06', 5],
        ['2024-05-13', 0],
      ]);
      expect(res.body.rows[0].counts.visitors).toBe(5);
    });

    it('months: every month of the range, zeros filled', async () => {
      const res = await stats(siteId, { metrics: 'pageviews', by: 'month', from: '2024-02-10', to: '2024-06-30' });
      expect(pairs(res.body.rows)).toEqual([
        ['2024-02', 0],
        ['2024-03', 1],
        ['2024-04', 3],
        ['2024-05', 9],
        ['2024-06', 0],
      ]);
    });

    it('hours are refused there, naming by', async () => {
      const res = await f.get(`/v1/sites/${siteId}/stats`, {
        metrics: 'pageviews',
        by: 'hour',
        from: '2024-04-29',
        to: '2024-04-30',
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('by');
    });
  });

  it('a bucket spanning rolled-up and raw days sums both sources', async () => {
    const siteId = await f.site();
    const rawStart = rawStartOf(dayAgo('UTC', 0));
    const old = addDays(rawStart, -1);
    await insertRollups(f.t, siteId, [{ day: old, metricSet: 'pageviews', count: 4, visitors: 4 }]);
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, noonUtc(rawStart)), pv(siteId, noonUtc(addDays(rawStart, 1)))]);
    const from = addDays(old, -40);
    const to = addDays(rawStart, 40);
    const res = await stats(siteId, { metrics: 'pageviews', by: 'month', from, to });
    expect(res.body.source).toBe('mixed');
    const expected = new Map<string, number>();
    for (const [day, n] of [
      [old, 4],
      [rawStart, 1],
      [addDays(rawStart, 1), 1],
    ] as const)
      expected.set(day.slice(0, 7), (expected.get(day.slice(0, 7)) ?? 0) + n);
    const lit = pairs(res.body.rows).filter(([, n]) => n);
    expect(lit).toEqual([...expected.entries()]);
    expect(res.body.rows[0].value).toBe(from.slice(0, 7));
    expect(res.body.rows.at(-1).value).toBe(to.slice(0, 7));
  });
});
