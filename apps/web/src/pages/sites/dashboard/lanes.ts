import type { LaneKey } from './choices.ts';

/** One line of the chart: a count of the series' metric set. */
export interface LineDef {
  count: string;
  label: string;
  /** A CSS class giving the line its colour. */
  tone: 'primary' | 'secondary';
}

/** A top table of a lane: its dimension, its title, and (for pages) what it counts. */
export interface TableDef {
  dimension: string;
  title: string;
  count?: 'sessions' | 'pageviews';
}

/** What each lane shows: the metric set of its daily series, the lines drawn, and its top tables. */
export interface LaneView {
  metrics: 'pageviews' | 'requests';
  lines: LineDef[];
  tables: TableDef[];
  /** The noun of the chart's accessible name: "Sessions and pageviews per day". */
  chartName: string;
}

const PAGE_TABLES: TableDef[] = [
  { dimension: 'source', title: 'Sources' },
  { dimension: 'page', title: 'Pages', count: 'pageviews' },
  { dimension: 'country', title: 'Countries' },
  { dimension: 'device', title: 'Devices' },
];

const PAGE_LINES: LineDef[] = [
  { count: 'sessions', label: 'Sessions', tone: 'primary' },
  { count: 'pageviews', label: 'Pageviews', tone: 'secondary' },
];

export const LANE_VIEWS: Record<LaneKey, LaneView> = {
  people: { metrics: 'pageviews', lines: PAGE_LINES, tables: PAGE_TABLES, chartName: 'Sessions and pageviews per day' },
  internal: { metrics: 'pageviews', lines: PAGE_LINES, tables: PAGE_TABLES, chartName: 'Sessions and pageviews per day' },
  crawlers: {
    metrics: 'requests',
    lines: [{ count: 'requests', label: 'Requests', tone: 'primary' }],
    tables: [
      { dimension: 'bot', title: 'Bots' },
      { dimension: 'category', title: 'Categories' },
      { dimension: 'path', title: 'Paths' },
      { dimension: 'network', title: 'Networks' },
      { dimension: 'status', title: 'Status codes' },
    ],
    chartName: 'Crawler requests per day',
  },
};
