// site-store.ndjson's journeys: one line per UTC day of the export's range that has records and per
// zoom, for every such day (not only the days someone asked about, whose results were stored). Each day
// is read from the per-day store or computed and stored first (features/journeys), one day at a time,
// so a file of ninety days holds one day's groups in memory at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { JOURNEY_ZOOMS } from '@us/shared';
import { siteCtx } from '../../analytics/site-ctx.ts';
import { dayJourneys } from '../journeys/index.ts';

export interface SiteRow {
  id: string;
  timezone: string;
  settings: Record<string, unknown> | null;
}

export async function siteRowOf(em: EntityManager, siteId: string): Promise<SiteRow> {
  const [site] = await em
    .getConnection()
    .execute<SiteRow[]>('select id, timezone, settings from sites where id = ?', [siteId], 'all');
  if (!site) throw new Error(`site ${siteId} is gone`);
  return site;
}

/**
 * The UTC days of the range with records (pageviews or events arrived), from the site's first raw day
 * on: journeys are made from raw records, kept 90 days.
 */
export async function journeyDays(
  em: EntityManager,
  site: SiteRow,
  range: { from: string | null; to: string },
): Promise<string[]> {
  const { rawStart } = siteCtx(em, site);
  const from = range.from !== null && range.from > rawStart ? range.from : rawStart;
  const rows = await em.getConnection().execute<{ day: string }[]>(
    `select to_char(day, 'YYYY-MM-DD') as day from day_arrivals
      where site_id = ?::uuid and day >= ?::date and day <= ?::date and rows > 0 order by day`,
    [site.id, from, range.to],
    'all',
  );
  return rows.map((r) => r.day);
}

/** How many journeys lines the range makes: one per day with records and zoom. */
export async function journeyLineCount(em: EntityManager, site: SiteRow, range: { from: string | null; to: string }) {
  return (await journeyDays(em, site, range)).length * JOURNEY_ZOOMS.length;
}

export async function* journeyLines(
  em: EntityManager,
  site: SiteRow,
  range: { from: string | null; to: string },
): AsyncGenerator<string> {
  const ctx = siteCtx(em, site);
  for (const day of await journeyDays(em, site, range)) {
    for (const zoom of JOURNEY_ZOOMS) {
      yield `${JSON.stringify({ type: 'journeys', ...(await dayJourneys(ctx, site.settings, day, zoom)) })}\n`;
    }
  }
}
