// Writes that come too late for a site-day: a quarter-hour step that ends after the day's closing rollup, and a
// recount of a day whose oldest raw partition retention dropped while it was counted. Each would replace a
// complete rollup with less; the rollup already there stays.
import { createOrm, dropPartitionsOfDays, ensurePartitionsForDays, insertRows, type Orm, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addDays } from '../../../src/analytics/range.ts';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay } from '../../../src/analytics/rollup/rollup.ts';
import { storedRollupRows } from '../../support/rollup-day.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';
import { dayAgo } from '../../support/stats-fixture.ts';

const HOUR = 3_600_000;
let orm: Orm;

async function recordOf(sd: SiteDay) {
  const [row] = await orm.em
    .getConnection()
    .execute<{ until: string | null; version: number }[]>(
      'select rolled_until::text as until, version from rollup_days where site_id = ? and day = ?',
      [sd.siteId, sd.day],
      'all',
    );
  return row;
}

async function siteWithViews(name: string, timezone: string, day: string, at: number[]): Promise<SiteDay> {
  const { site } = await siteInNewWorkspace(orm, name, { timezone });
  const rows = at.flatMap((t) => pageviewRows(site.id, new Date(t), 3, () => ({ path: `/at-${t}` })));
  await insertRows(orm, 'pageviews', rows);
  return { siteId: site.id, timezone, day };
}

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
});

afterAll(async () => {
  await orm?.close();
});

describe('a rollup write that comes too late', () => {
  it('a quarter-hour step ending after the closing rollup leaves the complete day as it is', async () => {
    const day = dayAgo('UTC', 3);
    const lo = Date.parse(`${day}T00:00:00Z`);
    await ensurePartitionsForDays(orm, [new Date(lo)]);
    const sd = await siteWithViews('Late step', 'UTC', day, [lo + 8 * HOUR, lo + 23.9 * HOUR]);
    await rollupSiteDay(orm, sd);
    const closed = await storedRollupRows(orm, sd);
    expect(await recordOf(sd)).toMatchObject({ until: null });
    // The today job's list was made before midnight; its step of 23:45 comes after the day was closed.
    await rollupSiteDay(orm, sd, new Date(lo + 23.75 * HOUR).toISOString());
    expect(await recordOf(sd)).toMatchObject({ until: null });
    expect(await storedRollupRows(orm, sd)).toEqual(closed);
  });

  // Retention drops a day's oldest partition once the day is rolled up (a rollup of an older format counts); the
  // candidates of a recount leave out days whose first partition is gone, but the drop can come while one is counted.
  it.each([
    // The local day in one UTC partition: nothing left to read, the rollup was replaced by none.
    ['UTC', '2019-07-13', ['2019-07-13'], ['2019-07-13T08:00:00Z']],
    // The local day over two: the rows of the second were counted as the whole day.
    ['Asia/Tokyo', '2019-07-13', ['2019-07-12', '2019-07-13'], ['2019-07-12T20:00:00Z', '2019-07-13T03:00:00Z']],
  ])(
    'a recount of a day (%s) whose first raw partition was dropped meanwhile keeps its rollup',
    async (zone, day, partitions, at) => {
      await ensurePartitionsForDays(
        orm,
        partitions.map((d) => new Date(`${d}T00:00:00Z`)),
      );
      try {
        const sd = await siteWithViews(`Recount ${zone}`, zone, day, at.map(Date.parse));
        await rollupSiteDay(orm, sd);
        const counted = await storedRollupRows(orm, sd);
        expect(counted.length).toBeGreaterThan(0);
        // Rolled up in an older format: a recount's candidate.
        await orm.em
          .getConnection()
          .execute('update rollup_days set version = version - 1 where site_id = ? and day = ?', [sd.siteId, sd.day]);
        await dropPartitionsOfDays(orm, [partitions[0] as string]);
        await rollupSiteDay(orm, sd);
        expect(await storedRollupRows(orm, sd)).toEqual(counted);
      } finally {
        await dropPartitionsOfDays(orm, partitions);
      }
    },
  );

  it('a recount of a day whose first UTC partition was never made (nothing stored that day) replaces its rollup', async () => {
    // A Tokyo day of 66 days ago spans two UTC days; only the second had rows, so only its partition exists.
    const day = dayAgo('UTC', 66);
    const [first, second] = [addDays(day, -1), day];
    await dropPartitionsOfDays(orm, [first]);
    await ensurePartitionsForDays(orm, [new Date(`${second}T00:00:00Z`)]);
    const sd = await siteWithViews('Recount in a gap', 'Asia/Tokyo', day, [Date.parse(`${second}T03:00:00Z`)]);
    await rollupSiteDay(orm, sd);
    const counted = await storedRollupRows(orm, sd);
    expect(counted.filter((r) => r.startsWith('pageviews|||human = 3/'))).toHaveLength(1);
    await insertRows(
      orm,
      'pageviews',
      pageviewRows(sd.siteId, new Date(`${second}T04:00:00Z`), 2, () => ({ path: '/later' })),
    );
    await rollupSiteDay(orm, sd);
    const recounted = await storedRollupRows(orm, sd);
    expect(recounted.filter((r) => r.startsWith('pageviews|||human = 5/'))).toHaveLength(1);
    expect(recounted.filter((r) => r.startsWith('pageviews|page|/later|human = 2/'))).toHaveLength(1);
  });
});
