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
  count?: 'sessions' | 'pageviews' | 'value_sum';
  /** 'map': the same table drawn as a world map (countries). */
  view?: 'map';
}

/** What each lane shows: the metric set of its daily series, the lines drawn, and its top tables. */
export interface LaneView {
  metrics: 'pageviews' | 'requests';
  lines: LineDef[];
  /** Every table of the lane (each card's tabs, in order). */
  tables: TableDef[];
  /** The cards: each a list of tables shown one at a time as tabs (the first by default). */
  cards: TableDef[][];
  /** The noun of the chart's accessible name: "Sessions and pageviews per day". */
  chartName: string;
}

const PAGE_CARDS: TableDef[][] = [
  [
    { dimension: 'channel', title: 'Channels' },
    { dimension: 'source', title: 'Sources' },
    { dimension: 'referrer', title: 'Referrers' },
    { dimension: 'medium', title: 'Mediums' },
    { dimension: 'campaign', title: 'Campaigns' },
  ],
  [
    { dimension: 'page', title: 'Pages', count: 'pageviews' },
    { dimension: 'page', title: 'Entry pages', count: 'sessions' },
    { dimension: 'exit_page', title: 'Exit pages' },
    { dimension: 'page_type', title: 'Page types' },
  ],
  [
    { dimension: 'country', title: 'Countries' },
    { dimension: 'country', title: 'Map', view: 'map' },
    { dimension: 'language', title: 'Languages' },
    { dimension: 'timezone', title: 'Time zones' },
  ],
  [
    { dimension: 'device', title: 'Devices' },
    { dimension: 'screen', title: 'Screen sizes' },
  ],
  // Name or name and major version, like Plausible's toggle: a tab each.
  [
    { dimension: 'browser', title: 'Browsers' },
    { dimension: 'browser_version', title: 'Browser versions' },
  ],
  [
    { dimension: 'os', title: 'Operating systems' },
    { dimension: 'os_version', title: 'OS versions' },
  ],
  [
    { dimension: 'event', title: 'Events' },
    { dimension: 'label', title: 'Event labels' },
    { dimension: 'event', title: 'Event values', count: 'value_sum' },
  ],
];

const CRAWLER_CARDS: TableDef[][] = [
  [{ dimension: 'bot', title: 'Bots' }],
  [{ dimension: 'category', title: 'Categories' }],
  [{ dimension: 'path', title: 'Paths' }],
  [{ dimension: 'network', title: 'Networks' }],
  [{ dimension: 'status', title: 'Status codes' }],
];

const PAGE_LINES: LineDef[] = [
  { count: 'sessions', label: 'Sessions', tone: 'primary' },
  { count: 'pageviews', label: 'Pageviews', tone: 'secondary' },
];

export const LANE_VIEWS: Record<LaneKey, LaneView> = {
  people: {
    metrics: 'pageviews',
    lines: PAGE_LINES,
    cards: PAGE_CARDS,
    tables: PAGE_CARDS.flat(),
    chartName: 'Sessions and pageviews',
  },
  internal: {
    metrics: 'pageviews',
    lines: PAGE_LINES,
    cards: PAGE_CARDS,
    tables: PAGE_CARDS.flat(),
    chartName: 'Sessions and pageviews',
  },
  crawlers: {
    metrics: 'requests',
    lines: [{ count: 'requests', label: 'Requests', tone: 'primary' }],
    cards: CRAWLER_CARDS,
    tables: CRAWLER_CARDS.flat(),
    chartName: 'Crawler requests',
  },
};
