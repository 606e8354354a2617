// Weekly figures from Bing Webmaster Tools' JSON API: clicks and impressions per day
// (GetRankAndTrafficStats) summed by week; queries and pages shown and the impression-weighted average
// position from GetQueryStats and GetPageStats (Bing buckets them by week); inbound links from
// GetLinkCounts, a count as of now, so only the current week gets it. What Bing does not report is null.

import { bingCall as call } from './bing.ts';
import { type TopRow, topOf, type WeekFigures } from './week-figures.ts';
import { mondayOf } from './weeks.ts';

/** Bing's dates: `/Date(1700000000000)/` or `/Date(1700000000000-0800)/`, as a UTC day. */
export function bingDay(value: unknown): string | null {
  const ms = /\/Date\((-?\d+)/.exec(String(value))?.[1];
  const at = ms ? new Date(Number(ms)) : null;
  // Past JavaScript's dates (±8.64e15 ms) it is no date: the row is left out, not the whole pull.
  return at && !Number.isNaN(at.getTime()) ? at.toISOString().slice(0, 10) : null;
}

interface Stat {
  Date?: unknown;
  Query?: unknown;
  Clicks?: unknown;
  Impressions?: unknown;
  AvgImpressionPosition?: unknown;
}

const given = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Rows of one week summed per page or query (Bing may list one several times). */
function summed(rows: readonly Stat[]): TopRow[] {
  const by = new Map<string, TopRow>();
  for (const r of rows) {
    const key = String(r.Query ?? '');
    const t = by.get(key) ?? { key, clicks: 0, impressions: 0 };
    t.clicks += given(r.Clicks) ? r.Clicks : 0;
    t.impressions += given(r.Impressions) ? r.Impressions : 0;
    by.set(key, t);
  }
  return [...by.values()];
}

/** The sum of a figure over the week's days: null when no day was reported, or a day lacks the figure. */
function sumOf(days: readonly Stat[], figure: 'Clicks' | 'Impressions'): number | null {
  if (!days.length || !days.every((d) => given(d[figure]))) return null;
  return days.reduce((n, d) => n + (d[figure] as number), 0);
}

/** Distinct pages or queries of the week: 0 only when the week was reported without impressions. */
function countOf(rows: readonly Stat[], impressions: number | null): number | null {
  if (rows.length) return new Set(rows.map((s) => String(s.Query))).size;
  return impressions === 0 ? 0 : null;
}

/** The impression-weighted position over the rows that give one; null when none does. */
function positionOf(rows: readonly Stat[]): number | null {
  const placed = rows.filter((r) => given(r.Impressions) && r.Impressions > 0 && given(r.AvgImpressionPosition));
  const seen = placed.reduce((n, r) => n + (r.Impressions as number), 0);
  const weighted = placed.reduce((n, r) => n + (r.Impressions as number) * (r.AvgImpressionPosition as number), 0);
  return seen > 0 ? weighted / seen : null;
}

/**
 * One week from Bing's rows of it. What Bing does not report is null: a week without any day of
 * traffic has no clicks or impressions (Bing lists days with traffic only, and none before its history
 * starts), a figure a listed day lacks makes the week's sum unknown, and a week without query or page
 * rows has no query or page count unless it was reported without impressions.
 */
export function bingWeek(
  week: string,
  days: readonly Stat[],
  queries: readonly Stat[],
  pages: readonly Stat[],
  links: number | null,
): WeekFigures {
  const clicks = sumOf(days, 'Clicks');
  const impressions = sumOf(days, 'Impressions');
  const queryCount = countOf(queries, impressions);
  const pageCount = countOf(pages, impressions);
  return {
    week,
    clicks,
    impressions,
    ctr: clicks !== null && impressions !== null && impressions > 0 ? clicks / impressions : null,
    position: positionOf(queries),
    pages: pageCount,
    queries: queryCount,
    links,
    top: queryCount === null && pageCount === null ? null : { pages: topOf(summed(pages)), queries: topOf(summed(queries)) },
  };
}

/** Inbound links as of now: the sum of the counts Bing lists, null when it lists none. */
function linksOf(answer: { Links?: { Count?: unknown }[] }): number | null {
  if (!Array.isArray(answer.Links)) return null;
  if (!answer.Links.every((l) => given(l.Count))) return null;
  return answer.Links.reduce((n, l) => n + (l.Count as number), 0);
}

/** A list's rows by the Monday of their day (rows without a day left out). */
function rowsByWeek(rows: unknown): Map<string, Stat[]> {
  const out = new Map<string, Stat[]>();
  for (const s of Array.isArray(rows) ? (rows as Stat[]) : []) {
    const day = bingDay(s.Date);
    if (!day) continue;
    const week = mondayOf(day);
    const list = out.get(week);
    if (list) list.push(s);
    else out.set(week, [s]);
  }
  return out;
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
  const linkPage = await call<{ Links?: { Count?: unknown }[] }>(apiUrl, 'GetLinkCounts', apiKey, { siteUrl, page: '0' });
  const current = mondayOf(today);
  // Each row's week worked out once (it was once per week asked: 1.6 s per 100k rows of a first pull).
  const [byTraffic, byQuery, byPage] = [traffic, queries, pages].map(rowsByWeek);
  return weeks.map(({ week }) =>
    bingWeek(
      week,
      byTraffic?.get(week) ?? [],
      byQuery?.get(week) ?? [],
      byPage?.get(week) ?? [],
      week === current ? linksOf(linkPage ?? {}) : null,
    ),
  );
}
