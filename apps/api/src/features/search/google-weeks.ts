// Weekly figures from Search Console's Search Analytics API (searchAnalytics.query): totals for the
// week (clicks, impressions, ctr, position), and how many pages and queries were shown (rows of the
// `page` and `query` dimensions, up to the API's 25,000 rows a request). What it does not report is null.

import { ProviderError, providerAnswer, providerFetch, providerMessage } from './provider-error.ts';
import { NOT_REPORTED, type TopRow, topOf, type WeekFigures } from './week-figures.ts';

interface AnalyticsRow {
  keys?: string[];
  clicks?: number;
  impressions?: number;
  ctr?: number;
  position?: number;
}

async function query(apiUrl: string, token: string, property: string, body: Record<string, unknown>): Promise<AnalyticsRow[]> {
  const res = await providerFetch(
    'Google',
    `${apiUrl}/webmasters/v3/sites/${encodeURIComponent(property)}/searchAnalytics/query`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
  );
  if (!res.ok) throw new ProviderError('Google', res.status, await providerMessage(res));
  // Search Console leaves `rows` out when it has nothing; a body it did not finish, or rows that are not
  // rows, is a failed pull (the stored weeks stay), never a week of nothing.
  const { rows } = await providerAnswer('Google', res);
  if (rows === undefined) return [];
  if (!Array.isArray(rows) || !rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
    throw new ProviderError('Google', res.status, 'an answer without its data');
  }
  return rows as AnalyticsRow[];
}

const asTop = (r: AnalyticsRow): TopRow => ({
  key: String(r.keys?.[0] ?? ''),
  clicks: r.clicks ?? 0,
  impressions: r.impressions ?? 0,
});

const given = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * One week from its total row and its page and query rows. Search Console leaves `rows` out for a
 * week it has nothing for (no impressions, or no data yet): nothing reported, so every figure is null.
 * A figure the total row lacks is null too; pages and queries count the rows of a week that has a total.
 */
export function googleWeek(
  week: string,
  total: AnalyticsRow | undefined,
  pages: AnalyticsRow[],
  queries: AnalyticsRow[],
): WeekFigures {
  if (!total) return { ...NOT_REPORTED, week };
  const clicks = given(total.clicks);
  const impressions = given(total.impressions);
  const shown = impressions !== null && impressions > 0;
  const ctr = given(total.ctr) ?? (clicks !== null && shown ? clicks / impressions : null);
  return {
    week,
    clicks,
    impressions,
    // Without impressions there is no rate and no position.
    ctr: impressions === 0 ? null : ctr,
    position: impressions === 0 ? null : given(total.position),
    pages: pages.length,
    queries: queries.length,
    links: null,
    top: { pages: topOf(pages.map(asTop)), queries: topOf(queries.map(asTop)) },
  };
}

export async function googleWeeks(
  apiUrl: string,
  token: string,
  property: string,
  weeks: { week: string; end: string }[],
): Promise<WeekFigures[]> {
  const out: WeekFigures[] = [];
  for (const { week, end } of weeks) {
    const range = { startDate: week, endDate: end, dataState: 'all' };
    const [total] = await query(apiUrl, token, property, range);
    const pages = await query(apiUrl, token, property, { ...range, dimensions: ['page'], rowLimit: 25_000 });
    const queries = await query(apiUrl, token, property, { ...range, dimensions: ['query'], rowLimit: 25_000 });
    out.push(googleWeek(week, total, pages, queries));
  }
  return out;
}
