// The analytics jobs pick their work over every site when the scheduler runs them (no site list). The other
// suites narrow each run to their own sites (a shared database), which hides a statement a distributed engine
// refuses only when no site pins it to one node; the Citus lane runs this file too. Only the picking is run
// over every site here (it reads), so the suites running beside this one keep their rows as they left them.
// The days (2037) are apart from every other suite's.
import { createOrm, insertRows, type Orm, pageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pendingSiteDays } from '../../../src/analytics/rollup/pending-days.ts';
import { dueSiteDays } from '../../../src/analytics/rollup/rollup-today.ts';
import { recentSites } from '../../../src/jobs/result-days.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

let orm: Orm;
let siteId: string;
const TIMEZONE = 'Europe/Berlin';

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
  siteId = (await siteInNewWorkspace(orm, 'Every site', { timezone: TIMEZONE })).siteId;
  const rows = ['2037-03-09', '2037-03-10', '2037-03-11'].map((day, i) =>
    pageviewRow(siteId, new Date(`${day}T09:00:00Z`), { visitor: `v${i}` }),
  );
  await insertRows(orm, 'pageviews', rows);
});
afterAll(async () => {
  await orm?.close();
});

const ofSite = <T extends { siteId: string }>(xs: T[]) => xs.filter((x) => x.siteId === siteId);

describe('the analytics jobs pick their work over every site', () => {
  it('the rollup job: complete local days not rolled up', async () => {
    const days = await pendingSiteDays(orm, { now: new Date('2037-03-11T14:12:00Z') }, 1_000_000);
    // Every day with a partition is a candidate (one with no rows of the site is marked done when reached),
    // each site's newest first.
    const ours = ofSite(days).map((d) => d.day);
    expect(ours.filter((d) => d >= '2037-01-01')).toEqual(['2037-03-10', '2037-03-09']);
  });

  it("today's rollup job: sites with rows around their local today and no current rollup of it", async () => {
    const due = await dueSiteDays(orm, '2037-03-11T14:00:00.000Z');
    expect(ofSite(due)).toEqual([{ siteId, timezone: TIMEZONE, day: '2037-03-11', failures: 0 }]);
    // Not on a day with no rows around it.
    expect(ofSite(await dueSiteDays(orm, '2037-03-20T14:00:00.000Z'))).toEqual([]);
  });

  it('the result days job: sites with rows stored for the last 31 days', async () => {
    const ids = (now: string) => recentSites(orm, new Date(now)).then((xs) => xs.map((s) => s.id));
    expect(await ids('2037-03-12T00:00:00Z')).toContain(siteId);
    expect(await ids('2037-05-01T00:00:00Z')).not.toContain(siteId);
  });
});
