// Rows that arrive for a day after its complete rollup: the intake takes records up to 48 h late, and a node's
// buffer saved through an outage is stored at its next start. The rollup job counts them into the day at its next
// run (only the visitors they touch), so the dashboards, which read a complete day from its rollup, show them.
import { createOrm, ensurePartitionsForDays, eventOf, insertRows, leaveOf, type Orm, pageviewRows, requestRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rollupSiteDay, runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { storedRollupRows } from '../../support/rollup-day.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';
import { dayAgo } from '../../support/stats-fixture.ts';

const HOUR = 3_600_000;
let orm: Orm;

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
});
afterAll(async () => {
  await orm?.close();
});

const q = <T>(sql: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(sql, params, 'all');

/** The day's human pageviews as its rollup counts them. */
async function pageviewsOf(siteId: string, day: string) {
  const [r] = await q<{ n: string | null }>(
    `select sum(count)::text as n from daily_rollups
      where site_id = ? and day = ? and metric_set = 'pageviews' and dimension = '' and lane = 'human'`,
    [siteId, day],
  );
  return Number(r?.n ?? 0);
}

describe('rows arriving after a complete rollup', () => {
  it.each(['UTC', 'Pacific/Auckland'])('are counted into the day at the next run of the job (%s)', async (timezone) => {
    const day = dayAgo(timezone, 2);
    const { site } = await siteInNewWorkspace(orm, `Late rows ${timezone}`, { timezone });
    const [local] = await q<{ noon: Date }>(`select (?::date + time '12:00') at time zone ? as noon`, [day, timezone]);
    const at = new Date(local?.noon as Date);
    await ensurePartitionsForDays(orm, [new Date(at.getTime() - 24 * HOUR), at, new Date(at.getTime() + 24 * HOUR)]);
    const first = pageviewRows(site.id, at, 3);
    await insertRows(orm, 'pageviews', first);
    const run = () => runRollups(orm, { siteIds: [site.id], wait: true });
    await run();
    const [closed] = await q<{ until: string | null }>(
      'select rolled_until::text as until from rollup_days where site_id = ? and day = ?',
      [site.id, day],
    );
    expect(closed).toEqual({ until: null });
    expect(await pageviewsOf(site.id, day)).toBe(3);

    // Late: two pageviews of a new visitor, an event and a leave report of an earlier pageview, a server request.
    const late = pageviewRows(site.id, new Date(at.getTime() + HOUR), 2);
    await insertRows(orm, 'pageviews', late);
    await insertRows(orm, 'events', [eventOf(first[0]!, { name: 'Signup' })]);
    await insertRows(orm, 'page_leaves', [leaveOf(first[1]!, { timeOnPageMs: 42_000 })]);
    await insertRows(orm, 'requests', [requestRow(site.id, at)]);
    expect(await run()).toMatchObject({ rolled: 1, failed: 0 });
    expect(await pageviewsOf(site.id, day)).toBe(5);

    // The same rows as the whole day counted from scratch.
    const counted = await storedRollupRows(orm, { siteId: site.id, timezone, day });
    await q('delete from rollup_days where site_id = ? and day = ?', [site.id, day]);
    await rollupSiteDay(orm, { siteId: site.id, timezone, day });
    expect(counted).toEqual(await storedRollupRows(orm, { siteId: site.id, timezone, day }));

    // Nothing new: the next run has nothing to do for the day.
    expect(await run()).toMatchObject({ rolled: 0 });
  });
});
