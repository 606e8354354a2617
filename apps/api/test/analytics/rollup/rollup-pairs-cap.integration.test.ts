// A site-day of many pages (a blog, a shop's product pages): a pair with more values than PAIR_VALUES_PER_DAY
// is no summary any more, so the day's rollup leaves it out and records which; every other row is exactly the
// SQL rollup's (support/rollup-sql.ts), counted whole and then brought up to date.
import { createOrm, insertRows, type Orm, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay, siteDaySource } from '../../../src/analytics/rollup/rollup.ts';
import { PAIR_VALUES_PER_DAY } from '../../../src/analytics/rollup/rollup-tally.ts';
import { normalRows, pageview, storedRollupRows } from '../../support/rollup-day.ts';
import { sqlRollupRows } from '../../support/rollup-sql.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';
import { dayAgo } from '../../support/stats-fixture.ts';

const PAGES = PAIR_VALUES_PER_DAY + 1_000;
const HOUR = 3_600_000;
let orm: Orm;
let sd: SiteDay;
let lo: number;

const until = (h: number) => new Date(lo + h * HOUR).toISOString();

/** What the SQL rollup counts up to `h` (or the whole day), without the pairs the day left out. */
async function expected(omitted: readonly string[], h?: number) {
  const rows = await sqlRollupRows(orm, await siteDaySource(orm, sd, h === undefined ? undefined : until(h)));
  return normalRows(rows.filter((r) => !omitted.includes(r.dimension)));
}

async function omittedPairs(): Promise<string[]> {
  const [day] = await orm.em
    .getConnection()
    .execute<{ omitted: string[] }[]>('select omitted_pairs as omitted from rollup_days where site_id = ? and day = ?', [
      sd.siteId,
      sd.day,
    ]);
  return day?.omitted ?? [];
}

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
  const { site } = await siteInNewWorkspace(orm, 'Many pages', { timezone: 'UTC' });
  sd = { siteId: site.id, timezone: 'UTC', day: dayAgo('UTC', 3) };
  lo = Date.parse(`${sd.day}T00:00:00Z`);
  // Each page seen once, by a few thousand visitors over the morning: as many countries-by-page as pages.
  const countries = ['DE', 'FR', 'US', 'NL'];
  await insertRows(
    orm,
    'pageviews',
    pageviewRows(sd.siteId, new Date(lo + 8 * HOUR), PAGES, (i) => ({
      at: new Date(lo + 8 * HOUR + i * 1000),
      visitor: `many-${i % 3000}`,
      sessionStart: i < 3000,
      path: `/article/${i}`,
      country: countries[i % countries.length] as string,
      referrerHost: i % 7 === 0 ? 'news.example' : null,
    })),
  );
}, 120_000);

afterAll(async () => {
  await orm?.close();
});

describe('a day of more pages than a pair keeps', () => {
  it('leaves out the pairs past the bound and keeps every other row', async () => {
    expect((await rollupSiteDay(orm, sd, until(20)))?.recounted).toBeNull();
    const omitted = await omittedPairs();
    expect(omitted).toContain('country|page');
    expect(omitted).toContain('device|page');
    // Pairs without the page stay.
    expect(omitted).not.toContain('country|device');
    const rows = await storedRollupRows(orm, sd);
    expect(rows.filter((r) => r.includes('|country|page|'))).toEqual([]);
    expect(rows).toContain('pageviews|page|/article/7|human = 1/1');
    expect(rows).toEqual(await expected(omitted, 20));
  });

  it('brings the day up to date without rows of the pairs it left out', async () => {
    const omitted = await omittedPairs();
    await insertRows(orm, 'pageviews', [
      pageview(sd.siteId, 'many-late', new Date(lo + 9 * HOUR), { sessionStart: true, path: '/late', country: 'DE' }),
      pageview(sd.siteId, 'many-after', new Date(lo + 20.5 * HOUR), { sessionStart: true, path: '/after', country: 'FR' }),
    ]);
    expect((await rollupSiteDay(orm, sd, until(21)))?.recounted).toBeGreaterThan(0);
    expect(await omittedPairs()).toEqual(omitted);
    const rows = await storedRollupRows(orm, sd);
    expect(rows).toContain('pageviews|page|/late|human = 1/1');
    expect(rows).toEqual(await expected(omitted, 21));
  });
});
