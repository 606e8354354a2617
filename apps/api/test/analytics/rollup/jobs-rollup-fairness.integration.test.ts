import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pendingSiteDays } from '../../../src/analytics/rollup/pending-days.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { rollupLag, rollupOldestPending } from '../../../src/core/observe/metrics.ts';
import { createOwnDatabase } from '../../support/faults.ts';
import { createToken } from '../../support/server.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

// A change of time zone (or of kept property keys) makes the rollup job count a site's whole raw window
// again. The attack: owners switching zones to keep the job on their own old days. The job must still close
// the other tenants' new days first, and share the recounting between the sites that asked for it.
// A database of its own, so that every site-day the job sees is this file's.
describe('rollup job: a site counting its days again does not hold the others back', () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let f: StatsFixture;
  let token: string;
  beforeAll(async () => {
    own = await createOwnDatabase(inject('databaseUrl'));
    f = await statsFixture({ databaseUrl: own.url });
    token = (await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['sites:write'] })).token;
  });
  afterAll(async () => {
    await f?.close();
    await own?.drop();
  });

  const orm = () => f.t.deps.orm;
  const switchZone = (siteId: string, timezone: string) =>
    f.t.request.patch(`/v1/sites/${siteId}`).set('Authorization', `Bearer ${token}`).send({ timezone }).expect(200);
  const rollOnce = async (siteIds: string[], maxDays: number) => {
    const run = await runRollups(orm(), { siteIds, maxDays, wait: true });
    expect(run.failed).toBe(0);
    return run;
  };
  const rollAll = async (siteIds: string[]) => {
    for (let runs = 0; (await rollOnce(siteIds, 500)).more; runs++) expect(runs).toBeLessThan(10);
  };
  const source = async (siteId: string, day: string) =>
    (await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', from: day, to: day }).expect(200)).body.source;

  it("another site's new day is rolled up first, and two recounting sites take turns", async () => {
    const [x, y, victim] = [await f.site(), await f.site(), await f.site()];
    const busy = [3, 4, 5, 6, 7, 8].map((n) => dayAgo('UTC', n));
    await insertRows(
      orm(),
      'pageviews',
      busy.flatMap((d) => [pv(x, noonUtc(d)), pv(y, noonUtc(d))]),
    );
    const sites = [x, y, victim];
    await rollAll(sites);
    expect(await source(x, dayAgo('UTC', 3))).toBe('rollups');

    // Site x starts over in another zone, and the job gets through part of it.
    await switchZone(x, 'Asia/Tokyo');
    const xDays = (await pendingSiteDays(orm(), { siteIds: [x] }, 1000)).map((p) => p.day);
    expect(xDays.length).toBeGreaterThan(4);
    await rollOnce([x], 3);

    // Then y switches too, and the victim's new day arrives.
    await switchZone(y, 'Asia/Tokyo');
    const fresh = dayAgo('UTC', 2);
    await insertRows(orm(), 'pageviews', [pv(victim, noonUtc(fresh))]);
    expect(await source(victim, fresh)).toBe('raw');

    const pending = await pendingSiteDays(orm(), { siteIds: sites }, 1000);
    // A day counted again is one a rollup closed before.
    const closed = new Set(
      (
        await orm()
          .em.getConnection()
          .execute<{ key: string }[]>(
            `select site_id::text || ' ' || to_char(day, 'YYYY-MM-DD') as key from rollup_days where rolled_until is null`,
          )
      ).map((r) => r.key),
    );
    const isRecount = (p: { siteId: string; day: string }) => closed.has(`${p.siteId} ${p.day}`);
    const firstRecount = pending.findIndex(isRecount);
    // The days no rollup has closed yet (the victim's, and x's and y's new Tokyo days) come before every day
    // counted again.
    expect(firstRecount).toBeGreaterThan(0);
    expect(pending.slice(firstRecount).every(isRecount)).toBe(true);
    expect(pending.slice(0, firstRecount)).toContainEqual(expect.objectContaining({ siteId: victim, day: fresh }));
    // The recounts alternate between x and y: y, which asked last and has the newer days left, does not go
    // ahead of x. Each site's days newest first.
    const recounts = pending.slice(firstRecount);
    expect(recounts.filter((p) => p.siteId === x).length).toBeGreaterThanOrEqual(2);
    expect(new Set(recounts.slice(0, 2).map((p) => p.siteId))).toEqual(new Set([x, y]));
    expect(new Set(recounts.slice(2, 4).map((p) => p.siteId))).toEqual(new Set([x, y]));
    for (const site of sites) {
      const days = pending.filter((p) => p.siteId === site && isRecount(p) === false).map((p) => p.day);
      expect(days).toEqual([...days].sort().reverse());
      const again = recounts.filter((p) => p.siteId === site).map((p) => p.day);
      expect(again).toEqual([...again].sort().reverse());
    }

    // What the victim sees: the runs that reach no day counted again close its day. The job's gauge of days
    // left without a rollup counts the days not closed yet, not those counted again (they keep their rollup).
    const oldestPending = async () => (await rollupOldestPending.get()).values[0]?.value;
    expect(firstRecount).toBeGreaterThan(1);
    await rollOnce(sites, 1);
    expect(await oldestPending()).toBeGreaterThan(86_400);
    await rollOnce(sites, firstRecount - 1);
    expect(await source(victim, fresh)).toBe('rollups');
    expect(await oldestPending()).toBe(0);
    // Nor is a day counted again a late rollup: the lag histogram (what an operator alerts on) leaves it out.
    const lagCount = async () =>
      (await rollupLag.get()).values.find((v) => v.metricName === 'us_rollup_lag_seconds_count')?.value ?? 0;
    const lagsBefore = await lagCount();
    const run = await rollOnce(sites, 500);
    expect(run.rolled + run.empty).toBe(recounts.length);
    expect(await lagCount()).toBe(lagsBefore);
    expect(await pendingSiteDays(orm(), { siteIds: sites }, 1000)).toEqual([]);
  });
});
