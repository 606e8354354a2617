// A generated site-day for the rollup tests (rollup-tally, rollup-delta), and rollup rows as comparable text.
import { randomUUID } from 'node:crypto';
import { type Orm, type PageviewRow, pageviewRow } from '@us/db';
import { generateTraffic } from '../../scripts/seed/generate.ts';
import type { SiteDay } from '../../src/analytics/rollup/pending-days.ts';
import type { RollupRow } from '../../src/analytics/rollup/rollup-format.ts';
import { siteInNewWorkspace } from './sites.ts';
import { dayAgo } from './stats-fixture.ts';

/** Rows as comparable text, in one order. */
export const normalRows = (rows: RollupRow[]) =>
  rows.map((r) => `${r.metric_set}|${r.dimension}|${r.value}|${r.lane} = ${BigInt(r.count)}/${Number(r.visitors)}`).sort();

/** Yesterday (site time) of a new site in `timezone` with `pageviews` generated over its last two days. */
export async function generatedSiteDay(orm: Orm, name: string, timezone: string, pageviews: number): Promise<SiteDay> {
  const { site } = await siteInNewWorkspace(orm, name, { timezone });
  await generateTraffic(orm, { siteId: site.id, timezone, days: 2, pageviews, jobs: 1, seed: name.toLowerCase() });
  return { siteId: site.id, timezone, day: dayAgo(timezone, 1) };
}

/** The rollup rows stored for a site-day, as `normalRows`. */
export async function storedRollupRows(orm: Orm, sd: SiteDay) {
  return normalRows(
    await orm.em
      .getConnection()
      .execute<RollupRow[]>(
        'select metric_set, dimension, value, lane, count, visitors from daily_rollups where site_id = ? and day = ?',
        [sd.siteId, sd.day],
        'all',
      ),
  );
}

/** A pageview of `visitor` at `at` that does not begin a session (the factory's otherwise), with a row id. */
export const pageview = (siteId: string, visitor: string, at: Date, extra: Partial<PageviewRow> = {}): PageviewRow =>
  pageviewRow(siteId, at, { id: randomUUID(), visitor, sessionStart: false, ...extra });
