// Weekly figures from Search Console's Search Analytics API (searchAnalytics.query): totals for the
// week (clicks, impressions, ctr, position), and how many pages and queries were shown (rows of the
// `page` and `query` dimensions, up to the API's 25,000 rows a request).

import { ProviderError, providerFetch, providerMessage } from './provider-error.ts';
import { type TopRow, topOf, type WeekFigures } from './week-figures.ts';

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
  const answer = (await res.json().catch(() => ({}))) as { rows?: AnalyticsRow[] };
  return Array.isArray(answer.rows) ? answer.rows : [];
}

const asTop = (r: AnalyticsRow): TopRow => ({
  key: String(r.keys?.[0] ?? ''),
  clicks: r.clicks ?? 0,
  impressions: r.impressions ?? 0,
});

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
    const impressions = total?.impressions ?? 0;
    out.push({
      week,
      clicks: total?.clicks ?? 0,
      impressions,
      // Without impressions there is no rate and no position: not collected, rather than zero.
      ctr: impressions > 0 ? (total?.ctr ?? null) : null,
      position: impressions > 0 ? (total?.position ?? null) : null,
      pages: pages.length,
      queries: queries.length,
      links: null,
      top: { pages: topOf(pages.map(asTop)), queries: topOf(queries.map(asTop)) },
    });
  }
  return out;
}
