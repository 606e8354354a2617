import { insertRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pendingSiteDays } from '../../../src/analytics/rollup/pending-days.ts';
import { dropRolledUpPartitions } from '../../../src/analytics/rollup/retention.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { dueSiteDays, runTodayRollups } from '../../../src/analytics/rollup/rollup-today.ts';
import { rollupOldestPending } from '../../../src/core/observe/metrics.ts';
import { BEHIND, JOBS, type JobsOptions } from '../../../src/jobs/job-table.ts';
import { createOwnDatabase } from '../../support/faults.ts';
import { dayAgo, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

// One tenant's day whose rollup fails every time (here a constraint PostgreSQL enforces on the site's rollup
// rows; in the world a bug its rows meet, or a thread out of memory). Before, every run took it again, every run
// ended "failed", and a run that failed anything was not followed by the minute's catch-up: every other tenant's
// backlog drained an hour per 500 days. And once the day was past the raw window it held every site's old
// partitions forever. A database of its own: the constraint and the partitions are this file's.
describe("rollup job: a day that fails every time holds back neither the others' rollups nor retention", () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let f: StatsFixture;
  beforeAll(async () => {
    own = await createOwnDatabase(inject('databaseUrl'));
    f = await statsFixture({ databaseUrl: own.url });
  });
  afterAll(async () => {
    await f?.close();
    await own?.drop();
  });

  const orm = () => f.t.deps.orm;
  const sql = <T>(text: string, params: unknown[] = []) => orm().em.getConnection().execute<T[]>(text, params, 'all');
  // Dropped first: a test that failed before mending must not fail the next ones too.
  const breakRollupsOf = async (siteId: string) => {
    await sql('alter table daily_rollups drop constraint if exists broken_site');
    return sql(`alter table daily_rollups add constraint broken_site check (site_id <> '${siteId}'::uuid)`);
  };
  const mendRollups = () => sql('alter table daily_rollups drop constraint broken_site');
  const failures = (siteId: string) =>
    sql<{ day: string; attempts: number; error: string; wait_h: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, attempts, error,
              round(extract(epoch from next_try_at - first_failed_at) / 3600)::int as wait_h
         from rollup_failures where site_id = ?`,
      [siteId],
    );
  const source = async (siteId: string, day: string) =>
    (await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', from: day, to: day }).expect(200)).body.source;
  const rollupsJob = JOBS.find((j) => j.name === 'rollups');
  const HOUR = 3_600_000;

  it('is tried again later and later, while the runs between catch the others up', async () => {
    const broken = await f.site();
    const others = [await f.site(), await f.site(), await f.site()];
    const sites = [broken, ...others];
    const days = [2, 3, 4].map((n) => dayAgo('UTC', n));
    await insertRows(orm(), 'pageviews', [
      pv(broken, noonUtc(days[0] as string)),
      ...others.flatMap((s) => days.map((d) => pv(s, noonUtc(d)))),
    ]);
    await breakRollupsOf(broken);
    // Two in the morning of today, whatever the clock says: the hours below stay within today, and yesterday is due
    // (a day closes an hour after it ends). Run in the hour after midnight with the clock's time, yesterday fell due
    // between two of the steps.
    const start = Date.parse(`${dayAgo('UTC', 0)}T02:00:00Z`);
    const job = (at: number): JobsOptions => ({ orm: orm(), siteIds: sites, rollupMaxDays: 8, now: () => new Date(at) });

    // The first run meets the broken day (each site's newest day comes first, yesterday's with no rows before
    // it) and still asks for the catch-up.
    expect(await rollupsJob?.run(job(start))).toBe(BEHIND);
    expect(await failures(broken)).toEqual([
      { day: days[0], attempts: 1, error: expect.stringContaining('broken_site'), wait_h: 1 },
    ]);
    // The catch-up runs leave the broken day alone until its hour has passed, and close every other day.
    let runs = 0;
    while ((await rollupsJob?.run(job(start))) === BEHIND) expect(++runs).toBeLessThan(5);
    for (const s of others) for (const d of days) expect(await source(s, d)).toBe('rollups');
    expect((await failures(broken))[0]?.attempts).toBe(1);
    expect(await source(broken, days[0] as string)).toBe('raw');
    // The operator's gauge still counts the broken day: it has no rollup.
    expect((await rollupOldestPending.get()).values[0]?.value).toBeGreaterThan(86_400);

    // An hour on, it is tried again, and waits twice as long after failing again.
    expect(await pendingSiteDays(orm(), { siteIds: sites, now: new Date(start + 30 * 60_000) }, 10)).toEqual([]);
    const again = await pendingSiteDays(orm(), { siteIds: sites, now: new Date(start + HOUR + 60_000) }, 10);
    expect(again).toEqual([expect.objectContaining({ siteId: broken, day: days[0], failures: 1 })]);
    const second = await runRollups(orm(), { siteIds: sites, now: new Date(start + HOUR + 60_000), wait: true });
    expect(second).toMatchObject({ failed: 1, rolled: 0, more: false });
    expect(await failures(broken)).toEqual([expect.objectContaining({ attempts: 2, wait_h: 3 })]);
    // And four hours after that.
    expect(await rollupsJob?.run(job(start + 4 * HOUR))).toBeUndefined();
    expect(await failures(broken)).toEqual([expect.objectContaining({ attempts: 3, wait_h: 8 })]);

    // Mended, the day is rolled up at its next try and its failures are forgotten.
    await mendRollups();
    expect(await runRollups(orm(), { siteIds: sites, now: new Date(start + 9 * HOUR), wait: true })).toMatchObject({
      rolled: 1,
      failed: 0,
    });
    expect(await source(broken, days[0] as string)).toBe('rollups');
    expect(await failures(broken)).toEqual([]);
  });

  it('holds the old raw partitions for a week, then lets them go and names the day given up', async () => {
    // Days long gone (2003), apart from the first test's.
    const broken = await f.site();
    const fine = await f.site();
    await insertRows(orm(), 'pageviews', [
      pv(broken, noonUtc('2003-01-10')),
      pv(fine, noonUtc('2003-01-10')),
      pv(fine, noonUtc('2003-01-11')),
    ]);
    await breakRollupsOf(broken);
    const firstTry = new Date('2003-01-12T02:00:00Z');
    expect(await runRollups(orm(), { siteIds: [broken, fine], now: firstTry, wait: true })).toMatchObject({ failed: 1 });
    const has = async (day: string) =>
      (
        await sql<{ n: number }>(`select count(*)::int as n from pg_class where relname = ?`, [
          `pageviews_p${day.replaceAll('-', '')}`,
        ])
      )[0]?.n === 1;
    const logged: string[] = [];
    const logger = { info: () => {}, warn: () => {}, error: (m: string) => logged.push(m) };
    const drop = (now: Date) => dropRolledUpPartitions(orm(), { now, rawDays: 1, from: '2003-01-01', wait: true, logger });

    // Six days after the first failure the day still holds its partition, and every later one.
    expect(await drop(new Date('2003-01-18T02:00:00Z'))).toMatchObject({ dropped: [], blockedAt: '2003-01-10' });
    expect(await has('2003-01-10')).toBe(true);
    // A week on, the partitions go; the error names the site and the day lost with them.
    const run = await drop(new Date('2003-01-19T03:00:00Z'));
    expect(run.dropped.length).toBeGreaterThan(0);
    expect(await has('2003-01-10')).toBe(false);
    expect(await has('2003-01-11')).toBe(false);
    expect(logged).toEqual([expect.stringContaining(`site ${broken} day 2003-01-10 has no rollup after 1 failed tries`)]);
    expect(await failures(broken)).toEqual([]);
    await mendRollups();
  });

  it("today's quarter-hour steps: a failing site waits for its next try, and the least current site comes first", async () => {
    const broken = await f.site();
    const behind = await f.site();
    const current = await f.site();
    const today = dayAgo('UTC', 0);
    const now = new Date(`${today}T12:07:00Z`);
    await insertRows(orm(), 'pageviews', [
      pv(broken, new Date(`${today}T09:00:00Z`)),
      pv(behind, new Date(`${today}T09:00:00Z`)),
      pv(current, new Date(`${today}T09:00:00Z`)),
      pv(current, new Date(`${today}T11:20:00Z`)),
    ]);
    // `current` was rolled up to 11:45 a moment ago, `behind` to 10:00; `broken` never.
    await runTodayRollups(orm(), { siteIds: [behind], now: new Date(`${today}T10:07:00Z`), wait: true });
    await runTodayRollups(orm(), { siteIds: [current], now: new Date(`${today}T11:50:00Z`), wait: true });
    await insertRows(orm(), 'pageviews', [
      pv(current, new Date(`${today}T11:55:00Z`)),
      pv(behind, new Date(`${today}T11:00:00Z`)),
    ]);
    const due = await dueSiteDays(orm(), `${today}T12:00:00.000Z`, [broken, behind, current], now);
    expect(due.map((d) => d.siteId)).toEqual([broken, behind, current]);

    await breakRollupsOf(broken);
    const run = await runTodayRollups(orm(), { siteIds: [broken, behind, current], now, wait: true });
    expect(run).toMatchObject({ refreshed: 2, failed: 1 });
    expect(await failures(broken)).toEqual([expect.objectContaining({ day: today, attempts: 1 })]);
    // The next steps leave it out until its hour has passed.
    const later = new Date(now.getTime() + 15 * 60_000);
    expect((await dueSiteDays(orm(), `${today}T12:15:00.000Z`, [broken], later)).length).toBe(0);
    const hourOn = new Date(now.getTime() + 61 * 60_000);
    expect(await dueSiteDays(orm(), `${today}T13:00:00.000Z`, [broken], hourOn)).toEqual([
      expect.objectContaining({ siteId: broken, failures: 1 }),
    ]);
    await mendRollups();
    expect(await runTodayRollups(orm(), { siteIds: [broken], now: hourOn, wait: true })).toMatchObject({
      refreshed: 1,
      failed: 0,
    });
    expect(await failures(broken)).toEqual([]);
  });
});
