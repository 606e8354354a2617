// Weekly figures from Bing Webmaster Tools' JSON API: clicks and impressions per day
// (GetRankAndTrafficStats) summed by week; queries and pages shown and the impression-weighted average
// position from GetQueryStats and GetPageStats (Bing buckets them by week); inbound links from
// GetLinkCounts, a count as of now, so only the current week gets it.

import { bingCall as call } from './bing.ts';
import { type TopRow, topOf, type WeekFigures } from './week-figures.ts';
import { mondayOf } from './weeks.ts';

/** Bing's dates: `/Date(1700000000000)/` or `/Date(1700000000000-0800)/`, as a UTC day. */
export function bingDay(value: unknown): string | null {
  const ms = /\/Date\((-?\d+)/.exec(String(value))?.[1];
  return ms ? new Date(Number(ms)).toISOString().slice(0, 10) : null;
}

interface Stat {
  Date?: unknown;
  Query?: unknown;
  Clicks?: number;
  Impressions?: number;
  AvgImpressionPosition?: number;
}

/** Rows of one week summed per page or query (Bing may list one several times). */
function summed(rows: readonly Stat[]): TopRow[] {
  const by = new Map<string, TopRow>();
  for (const r of rows) {
    const key = String(r.Query ?? '');
    const t = by.get(key) ?? { key, clicks: 0, impressions: 0 };
    t.clicks += r.Clicks ?? 0;
    t.impressions += r.Impressions ?? 0;
    by.set(key, t);
  }
  return [...by.values()];
}

export async function bingWeeks(
  apiUrl: string,
  apiKey: string,
  siteUrl: string,
  weeks: { week: string; end: string }[],
  today: string,
): Promise<WeekFigures[]> {
  const traffic = await call<Stat[]>(apiUrl, 'GetRankAndTrafficStats', apiKey, { siteUrl });
  const queries = await call<Stat[]>(apiUrl, 'GetQueryStats', apiKey, { siteUrl });
  const pages = await call<Stat[]>(apiUrl, 'GetPageStats', apiKey, { siteUrl });
  const linkPage = await call<{ Links?: { Count?: number }[] }>(apiUrl, 'GetLinkCounts', apiKey, { siteUrl, page: '0' });
  const weekOf = (s: Stat) => {
    const day = bingDay(s.Date);
    return day ? mondayOf(day) : null;
  };
  const current = mondayOf(today);
  return weeks.map(({ week }) => {
    const days = traffic.filter((s) => weekOf(s) === week);
    const clicks = days.reduce((n, s) => n + (s.Clicks ?? 0), 0);
    const impressions = days.reduce((n, s) => n + (s.Impressions ?? 0), 0);
    const inWeek = queries.filter((s) => weekOf(s) === week);
    const pagesInWeek = pages.filter((s) => weekOf(s) === week);
    const seen = inWeek.reduce((n, s) => n + (s.Impressions ?? 0), 0);
    const weighted = inWeek.reduce((n, s) => n + (s.Impressions ?? 0) * (s.AvgImpressionPosition ?? 0), 0);
    return {
      week,
      clicks,
      impressions,
      ctr: impressions > 0 ? clicks / impressions : null,
      position: seen > 0 ? weighted / seen : null,
      pages: new Set(pagesInWeek.map((s) => String(s.Query))).size,
      queries: new Set(inWeek.map((s) => String(s.Query))).size,
      links: week === current ? (linkPage.Links ?? []).reduce((n, l) => n + (l.Count ?? 0), 0) : null,
      top: { pages: topOf(summed(pagesInWeek)), queries: topOf(summed(inWeek)) },
    };
  });
}
