import { formatCount, formatDuration, formatPercent, formatRatio } from '../../../lib/format.ts';
import type { LaneView } from './lanes.ts';
import type { MeasureName, StatsResult, Summary, SummaryMeasure } from './types.ts';

/** One headline figure as a card shows it. */
export interface MeasureItem {
  key: string;
  label: string;
  measure: SummaryMeasure;
  format: (n: number) => string;
  /** What the figure means, for the card's hover help. */
  hint: string;
}

const SUMMARY_CARDS: { key: MeasureName; label: string; format: (n: number) => string; hint: string }[] = [
  { key: 'sessions', label: 'Sessions', format: formatCount, hint: 'Visits, counted once where each began' },
  { key: 'pageviews', label: 'Pageviews', format: formatCount, hint: 'Pages viewed, including client-side navigations' },
  { key: 'fromSearch', label: 'From search', format: formatCount, hint: 'Sessions that came from a search engine' },
  { key: 'averageSession', label: 'Average visit', format: formatDuration, hint: 'Visible time per session' },
  { key: 'bounceRate', label: 'Bounce rate', format: formatPercent, hint: 'Share of sessions with a single pageview' },
  { key: 'singlePageVisits', label: 'Single-page visits', format: formatCount, hint: 'Visitors who viewed one page only' },
  { key: 'pagesPerSession', label: 'Pages per visit', format: formatRatio, hint: 'Pageviews per session' },
];

/** People: the summary's measures, with the API's own change and tone. */
export function summaryMeasures(summary: Summary): MeasureItem[] {
  return SUMMARY_CARDS.map((c) => ({ ...c, measure: summary.measures[c.key] }));
}

/** The change of a figure the page works out itself (other lanes), with the summary's rule for tone. */
export function measureOf(value: number, previous: number | null, toned: boolean): SummaryMeasure {
  const change = previous === null || previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10;
  let tone: SummaryMeasure['tone'] = 'flat';
  if (toned && change !== null && Math.abs(change) >= 1) tone = change > 0 ? 'good' : 'bad';
  return { value, previous, change, tone };
}

const COUNT_LABELS: Record<string, string> = {
  sessions: 'Sessions',
  pageviews: 'Pageviews',
  visitors: 'Visitors',
  requests: 'Requests',
};
const COUNT_ORDER = ['sessions', 'pageviews', 'visitors', 'requests'];
const COUNT_HINTS: Record<string, string> = {
  sessions: 'Visits, counted once where each began',
  pageviews: 'Pages viewed, including client-side navigations',
  visitors: 'Distinct visitor codes in the range',
  requests: 'Server requests recorded by the edge worker or proxy',
};

/**
 * Crawlers and Internal: the series' totals (sessions, pageviews, visitors; or requests). More
 * crawler requests are neither good nor bad, so their change stays grey.
 */
export function seriesMeasures(view: LaneView, series: StatsResult, bots: StatsResult | null): MeasureItem[] {
  const previous = series.previous?.totals ?? null;
  const order = (c: string) => {
    const i = COUNT_ORDER.indexOf(c);
    return i === -1 ? COUNT_ORDER.length : i;
  };
  const counts = [...series.counts].sort((a, b) => order(a) - order(b));
  const items: MeasureItem[] = counts.map((count) => ({
    key: count,
    label: COUNT_LABELS[count] ?? count,
    hint: COUNT_HINTS[count] ?? '',
    format: formatCount,
    measure: measureOf(series.totals[count] ?? 0, previous ? (previous[count] ?? 0) : null, view.metrics !== 'requests'),
  }));
  if (bots) {
    items.push({
      key: 'bots',
      label: 'Crawlers seen',
      hint: 'Distinct crawlers (by name) that sent requests',
      format: formatCount,
      measure: measureOf(bots.rows.length, bots.previous ? bots.previous.rows.length : null, false),
    });
  }
  return items;
}
