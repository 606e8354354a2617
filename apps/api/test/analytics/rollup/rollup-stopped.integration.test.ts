// An orderly stop (SIGTERM) ends the rollup thread while a site-day counts: that day was counted as a failure
// (tried again an hour later, then 2, 4… hours, its today steps held too) and the run went on to start a new thread.
import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { liveRollupThreads, stopRollupThreads } from '../../../src/analytics/rollup/rollup-thread.ts';
import { runTodayRollups } from '../../../src/analytics/rollup/rollup-today.ts';
import { generatedSiteDay } from '../../support/rollup-day.ts';

let orm: Orm;
let sd: SiteDay;

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 6 });
  sd = await generatedSiteDay(orm, 'Stopped mid-count', 'UTC', 3000);
  await stopRollupThreads();
});

afterAll(async () => {
  await stopRollupThreads();
  await orm?.close();
});

const failures = async () =>
  orm.em.getConnection().execute<{ day: string }[]>('select day from rollup_failures where site_id = ?', [sd.siteId], 'all');

/** Stops the rollup threads once one has its site-day. */
async function stopMidCount() {
  await expect.poll(() => liveRollupThreads(), { interval: 5, timeout: 20_000 }).toBe(1);
  await stopRollupThreads();
}

describe('a stop while a site-day counts', { timeout: 60_000 }, () => {
  it('is no failure of the day: nothing is recorded against it, and the run starts nothing more', async () => {
    const [run] = await Promise.all([runRollups(orm, { siteIds: [sd.siteId], wait: true }), stopMidCount()]);
    expect(run).toMatchObject({ failed: 0, rolled: 0, more: true });
    expect(liveRollupThreads()).toBe(0);
    expect(await failures()).toEqual([]);
  });

  it("so is a stop during today's steps", async () => {
    const until = new Date(Date.parse(`${sd.day}T00:00:00Z`) + 20 * 3_600_000);
    const [run] = await Promise.all([
      runTodayRollups(orm, { siteIds: [sd.siteId], wait: true, now: new Date(until.getTime() + 600_000), lagMs: 300_000 }),
      stopMidCount(),
    ]);
    expect(run).toMatchObject({ failed: 0, refreshed: 0 });
    expect(await failures()).toEqual([]);
  });
});
