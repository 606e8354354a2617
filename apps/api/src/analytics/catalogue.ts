import type { Lane, MetricSet } from '@us/shared';
import { PROPERTY_PREFIX, propertyOfDimension } from '@us/shared/properties';

/**
 * The stats catalogue: the one allow-list of metric sets, dimensions, filters and counts. Every SQL
 * identifier or expression the stats engine and the rollup job put into a statement comes from here,
 * looked up by a name the request gave; request text itself only ever travels as a bind parameter.
 *
 * Raw tables: `pageviews` (sessions are its rows with `session_start`), `events` (without the page
 * script's element clicks, kind `click`), `requests`.
 *
 * Daily rollups (`daily_rollups`, one row per site, site-local day, metric set, dimension, value, lane):
 * - `count`: the set's primary count (pageviews, sessions, events, requests) for that value that day;
 * - `visitors`: distinct visitor codes that day for that value (0 for requests);
 * - dimension `''`, value `''`: the day's total; a null dimension value is stored as `''`;
 * - every dimension of `rollupDimensions(set)`: one dimension per row, so a rollup answer can group or
 *   filter by at most one dimension (besides `day`);
 * - sessions by `exit_page` (the path of each visit's last pageview, exit-paths.ts) and its pairs, from
 *   format 7 on;
 * - pairs of ROLLUP_PAIRS (pageviews and sessions): dimension `a|b` (names in alphabetical order), value
 *   `<a value>\x1f<b value>`, so a ranked table filtered by one dimension of a pair (pages where country
 *   = DE) is read from rollups too, not from millions of raw rows;
 * - metric sets `leave_scroll` and `leave_ms` (pageviews' dimensions and pairs): per value, the sum of
 *   the pageviews' deepest scroll / visible ms (`count`) and how many pageviews sent one (`visitors`),
 *   so scroll depth and time on page average over rolled-up days too (SUMMED_COUNTS);
 * - metric set `event_value` (events' dimensions): per value, the sum of the events' values in hundredths
 *   (`count`) and how many events carry one (`visitors`), from format 6 on (SUMMED_COUNTS);
 * - metric sets `search_sessions` (sessions from a search engine; visitors) and `single_page` (visitors
 *   with exactly one pageview of the value) per pageviews dimension, value and pair: with `sessions`,
 *   `pageviews` and `leave_ms`, a filtered summary's figures;
 * - metric set `summary` (lane human, dimension = a SUMMARY_ROLLUP_MEASURES name, value ''): the day's
 *   figures behind the summary that are not plain counts;
 * - custom properties, from format 10 on, only for the keys the site keeps (settings `keptProperties`, at
 *   most 10; rollup/kept-properties.ts): dimension `prop:<key>` of pageviews (with every set the pageviews
 *   rows write: sessions, search_sessions, single_page, leave_*) and events (with event_value), a row
 *   without the key under value '' like any null value, so a key's values add up to the day's totals. No
 *   pairs. `rollup_days.properties` lists the keys a day's rollup holds: a day rolled up before a key was
 *   kept has no rows for it (the engine refuses it on days older than the raw window, reads raw rows for
 *   recent ones). Keys strangers send and the site does not keep never reach the rollups.
 */

export interface DimensionDef {
  /** SQL expression over the metric set's table (no table alias), or null for the times `day`/`hour`/`week`/`month` (built by the engine from `at` and the site's time zone). */
  sql: string | null;
  label: string;
}

export interface MetricSetDef {
  table: 'pageviews' | 'events' | 'requests';
  /** Extra condition every row of the set meets (sessions: rows that began a visit). */
  rowFilter: string | null;
  description: string;
  defaultLane: Lane;
  /** Count name → SQL aggregate. The first is the set's primary count (stored in rollups as `count`). */
  counts: Record<string, string>;
  dimensions: Record<string, DimensionDef>;
}

const TIME: Record<string, DimensionDef> = {
  day: { sql: null, label: 'Day' },
  hour: { sql: null, label: 'Hour' },
  week: { sql: null, label: 'Week' },
  month: { sql: null, label: 'Month' },
};

/** The series dimensions: every bucket of the range is answered (zeros filled), never cut by `limit`. */
export const TIME_DIMENSIONS = new Set(['day', 'hour', 'week', 'month']);

/** The condition keeping element clicks (journeys only) out of every events figure, raw or rolled up. */
export const CLICKS_EXCLUDED = `kind <> 'click'`;

/** The channels that count as "from search". */
export const SEARCH_CHANNELS = ['Organic Search', 'Paid Search'] as const;
/** A search engine's host (any subdomain)… */
const SEARCH_HOST = String.raw`(^|\.)(google|bing|duckduckgo|yahoo|ecosia|baidu|yandex|qwant|startpage|naver|seznam)\.`;
const SEARCH_HOST_EXACT = 'search.brave.com';
/** …but none of their mail or app hosts. */
const NOT_SEARCH_HOST = String.raw`^(mail|email|webmail|inbox|accounts|myaccount|docs|drive|calendar|meet|chat|keep|photos|play|classroom|sites|groups|support|developers|translate|maps)\.`;

/**
 * "From search": the pageview's channel is Organic Search or Paid Search. Rows stored before channels
 * (channel null) test the referrer's host: a search engine's, but none of their mail or app hosts
 * (`mail.google.com` is Gmail, not Google search). No `?` in it: statements number their bind parameters from `?`.
 */
export const SEARCH_REFERRER_SQL = `(case when channel is not null then channel in (${SEARCH_CHANNELS.map((c) => `'${c}'`).join(', ')})
  else (referrer_host ~ '${SEARCH_HOST}' or referrer_host = '${SEARCH_HOST_EXACT}')
    and referrer_host !~ '${NOT_SEARCH_HOST}' end)`;

const searchHost = new RegExp(SEARCH_HOST);
const notSearchHost = new RegExp(NOT_SEARCH_HOST);
/**
 * SEARCH_REFERRER_SQL in the process (the rollup's streams; its patterns read the same in JavaScript as in
 * PostgreSQL): a null channel or host is SQL NULL; an empty host is no search engine's.
 */
export function isSearchReferrer(channel: string | null, host: string | null): boolean {
  if (channel !== null) return (SEARCH_CHANNELS as readonly string[]).includes(channel);
  if (host === null) return false;
  return (searchHost.test(host) || host === SEARCH_HOST_EXACT) && !notSearchHost.test(host);
}

/** Source: the stored one (utm_source, else the referrer's family, else its host); before channels, utm_source or the referrer host. */
export const SOURCE_SQL = `coalesce(source, coalesce(nullif(utm_source, ''), referrer_host))`;

/**
 * Channel: the stored one; rows before channels read Direct (no referrer, no utm) or Referral, an
 * approximation (docs/product/channels.md).
 */
export const CHANNEL_SQL = `coalesce(channel, case when referrer_host is null and utm_source is null and utm_medium is null then 'Direct' else 'Referral' end)`;

/**
 * Screen size classes by the window's width in CSS pixels when the pageview was sent (Plausible's
 * breakpoints): mobile < 576, tablet < 992, laptop < 1440, desktop from 1440 on; no width, no class.
 */
export const SCREEN_CLASS_SQL = `case when window_width is null or window_width <= 0 then null
  when window_width < 576 then 'mobile' when window_width < 992 then 'tablet'
  when window_width < 1440 then 'laptop' else 'desktop' end`;

/** "Chrome 131": a name and its major version, or the name alone where the version is unknown. */
const withMajor = (name: string, major: string) => `case when ${major} is null then ${name} else ${name} || ' ' || ${major} end`;

/**
 * Browser and operating system (core/enrich/software.ts): names from a short list, and with their major
 * version, each a dimension of its own (a version row filters by name and version at once).
 */
const SOFTWARE: Record<string, DimensionDef> = {
  browser: { sql: 'browser', label: 'Browser' },
  browser_version: { sql: withMajor('browser', 'browser_major'), label: 'Browser version' },
  os: { sql: 'os', label: 'Operating system' },
  os_version: { sql: withMajor('os', 'os_major'), label: 'Operating system version' },
};

const PAGE_DIMENSIONS: Record<string, DimensionDef> = {
  ...TIME,
  page: { sql: 'path', label: 'Page' },
  page_type: { sql: 'page_type', label: 'Page type' },
  source: { sql: SOURCE_SQL, label: 'Source' },
  channel: { sql: CHANNEL_SQL, label: 'Channel' },
  referrer: { sql: 'referrer_host', label: 'Referrer' },
  medium: { sql: 'utm_medium', label: 'Medium' },
  campaign: { sql: 'utm_campaign', label: 'Campaign' },
  country: { sql: 'country', label: 'Country' },
  device: { sql: 'device', label: 'Device' },
  ...SOFTWARE,
  network: { sql: 'as_org', label: 'Network' },
  language: { sql: 'language', label: 'Language' },
  timezone: { sql: 'timezone', label: 'Time zone' },
  screen: { sql: SCREEN_CLASS_SQL, label: 'Screen size' },
  bot: { sql: 'bot_name', label: 'Bot' },
  category: { sql: 'bot_category', label: 'Bot category' },
};

/** Event values as the figures keep them: each rounded to hundredths and counted as a whole number. */
export const EVENT_CENTS_SQL = 'round(value * 100)::bigint';

export const CATALOGUE: Record<MetricSet, MetricSetDef> = {
  pageviews: {
    table: 'pageviews',
    rowFilter: null,
    description: 'Confirmed pageviews from the page script, including client-side navigations',
    defaultLane: 'human',
    counts: {
      pageviews: 'count(*)',
      sessions: 'count(*) filter (where session_start)',
      visitors: 'count(distinct visitor)',
      // From the pageviews' leave reports (LEAVE_COUNTS): average deepest scroll (percent) and visible
      // seconds per pageview that sent one (summed and averaged across sources by SUMMED_COUNTS).
      scroll_depth: 'coalesce(round(avg(leave_scroll)), 0)',
      time_on_page: 'coalesce(round(avg(leave_ms) / 1000.0, 1), 0)',
    },
    dimensions: PAGE_DIMENSIONS,
  },
  sessions: {
    table: 'pageviews',
    rowFilter: 'session_start',
    description: 'Visits, counted once where each began (its entry page, source, country, device)',
    defaultLane: 'human',
    counts: {
      sessions: 'count(*)',
      visitors: 'count(distinct visitor)',
    },
    // Each visit also counts at its exit page: the path of its last pageview (exit-paths.ts).
    dimensions: { ...PAGE_DIMENSIONS, exit_page: { sql: 'exit_path', label: 'Exit page' } },
  },
  events: {
    table: 'events',
    // Element clicks of the page script (kind `click`) are for journeys only: no figure counts them.
    rowFilter: CLICKS_EXCLUDED,
    description: 'Events from site code and A/B exposures (kind event or exposure)',
    defaultLane: 'human',
    counts: {
      events: 'count(*)',
      visitors: 'count(distinct visitor)',
      // The values sent with the events (`value`), to the hundredth (SUMMED_COUNTS): their sum, and their
      // average over the events that carry one.
      value_sum: `coalesce(sum(${EVENT_CENTS_SQL}) / 100.0, 0)`,
      value_average: `coalesce(round(avg(${EVENT_CENTS_SQL})) / 100.0, 0)`,
    },
    dimensions: {
      ...TIME,
      event: { sql: 'name', label: 'Event' },
      label: { sql: 'label', label: 'Label' },
      kind: { sql: 'kind', label: 'Kind' },
      experiment: { sql: 'experiment', label: 'Experiment' },
      variant: { sql: 'variant', label: 'Variant' },
      page: { sql: 'path', label: 'Page' },
      country: { sql: 'country', label: 'Country' },
      device: { sql: 'device', label: 'Device' },
      ...SOFTWARE,
    },
  },
  requests: {
    table: 'requests',
    rowFilter: null,
    description: 'Server requests recorded by the edge worker SDK or proxy mode',
    defaultLane: 'bot',
    counts: {
      requests: 'count(*)',
    },
    dimensions: {
      ...TIME,
      path: { sql: 'path', label: 'Path' },
      status: { sql: 'status::text', label: 'Status' },
      cache: { sql: 'cache', label: 'Cache' },
      // Records stored before decisions were recorded were served: they count as allow.
      decision: { sql: `coalesce(decision, 'allow')`, label: 'Decision' },
      bot: { sql: 'bot_name', label: 'Bot' },
      category: { sql: 'bot_category', label: 'Bot category' },
      kind: { sql: 'kind', label: 'Kind' },
      network: { sql: 'as_org', label: 'Network' },
      country: { sql: 'country', label: 'Country' },
      method: { sql: 'method', label: 'Method' },
    },
  },
};

/**
 * Counts that need the pageviews' leave reports: the engine joins `page_leaves`, aggregated per
 * pageview into `leave_scroll` (deepest scroll) and `leave_ms` (visible time), only when one is asked for.
 */
export const LEAVE_COUNTS = new Set(['scroll_depth', 'time_on_page']);

/**
 * Counts that add up as a sum and a number across days and sources: each part of a statement gives the
 * sum of its per-row `column` and how many rows have one (`<count>__sum`, `<count>__n`); the figure is
 * taken once from the sums of every part (`final`). Rollups keep both per value as metric set
 * `metricSet` (`count` = the sum, `visitors` = the number of rows), from format `since` on: days rolled up
 * earlier (and older than the raw window) add nothing to these figures.
 * - scroll_depth, time_on_page: averages over the pageviews that sent a leave report (LEAVE_COUNTS);
 * - value_sum, value_average: the events' values (hundredths) summed, and averaged over the events that
 *   carry one.
 */
export const SUMMED_COUNTS: Record<
  string,
  { column: string; metricSet: string; since: number; final: (sum: string, n: string) => string }
> = {
  scroll_depth: {
    column: 'leave_scroll',
    metricSet: 'leave_scroll',
    since: 3,
    final: (sum, n) => `round(${sum} / nullif(${n}, 0))`,
  },
  time_on_page: {
    column: 'leave_ms',
    metricSet: 'leave_ms',
    since: 3,
    final: (sum, n) => `round(${sum} / nullif(${n}, 0) / 1000.0, 1)`,
  },
  value_sum: { column: EVENT_CENTS_SQL, metricSet: 'event_value', since: 6, final: (sum) => `${sum} / 100.0` },
  value_average: {
    column: EVENT_CENTS_SQL,
    metricSet: 'event_value',
    since: 6,
    final: (sum, n) => `round(${sum} / nullif(${n}, 0)) / 100.0`,
  },
};

/** Figures of the summary kept in rollups under metric set `summary` (lane human). */
export const SUMMARY_ROLLUP_MEASURES = ['from_search', 'single_page', 'visible_ms'] as const;

/**
 * Dimension pairs kept in rollups: the dimensions people filter a dashboard by (clicking a page, a source, a
 * country or a device) against the tables shown beside them. Names in alphabetical order. Each pair adds one
 * grouping per site-day to the rollup job (docs/performance/history.md,
 * "Rollups: from PostgreSQL's grouping to quarter-hour steps").
 */
const PAGE_PAIRS: readonly (readonly [string, string])[] = [
  ['channel', 'page'],
  ['channel', 'country'],
  ['channel', 'device'],
  ['country', 'page'],
  ['device', 'page'],
  ['page', 'source'],
  ['country', 'source'],
  ['country', 'device'],
  ['device', 'source'],
  // A name's versions (clicking a browser, then its Versions tab): no more rows than the versions alone.
  ['browser', 'browser_version'],
  ['os', 'os_version'],
];

/**
 * Exit pages beside every dimension a dashboard click filters by, so the Exit pages tab reads rollups
 * under any one filter (sessions only: pageviews have no exit page). Each adds to the rollup job
 * (docs/performance/history.md, "Rollups: from PostgreSQL's grouping to quarter-hour steps").
 */
const EXIT_PAIRS: readonly (readonly [string, string])[] = [
  ['country', 'exit_page'],
  ['device', 'exit_page'],
  ['exit_page', 'page'],
  ['exit_page', 'source'],
  ['channel', 'exit_page'],
  ['campaign', 'exit_page'],
  ['exit_page', 'language'],
  ['exit_page', 'medium'],
  ['exit_page', 'page_type'],
  ['exit_page', 'referrer'],
  ['exit_page', 'screen'],
  ['exit_page', 'timezone'],
  ['browser', 'exit_page'],
  ['exit_page', 'os'],
];

export const ROLLUP_PAIRS: Partial<Record<MetricSet, readonly (readonly [string, string])[]>> = {
  pageviews: PAGE_PAIRS,
  sessions: [...PAGE_PAIRS, ...EXIT_PAIRS],
};

/** Separates the two values of a pair's rollup row (control characters never reach stored values). */
export const PAIR_SEPARATOR = '\x1f';

/** The rollup dimension name of a pair of dimensions, or null when the set keeps no such pair. */
export function pairDimension(set: MetricSet, a: string, b: string): string | null {
  const [x, y] = a < b ? [a, b] : [b, a];
  return ROLLUP_PAIRS[set]?.some(([p, q]) => p === x && q === y) ? `${x}|${y}` : null;
}

/**
 * Dimensions added to the rollups after their first format: the format (`rollup_days.version`) from
 * which a rolled-up day keeps them. Days rolled up earlier and older than the raw window cannot
 * answer them (the engine says so); recent days are rolled up again.
 */
export const DIMENSION_SINCE: Record<string, number> = {
  timezone: 5,
  screen: 5,
  exit_page: 7,
  browser: 8,
  browser_version: 8,
  os: 8,
  os_version: 8,
  channel: 9,
};

/** The rollup format a question's dimensions (its `by` and `where` names) need; 1 for the first ones. */
export function formatForDimensions(names: readonly string[]): number {
  return Math.max(1, ...names.map((n) => DIMENSION_SINCE[n] ?? 1));
}

/** Metric sets whose rows carry custom properties (`props`), and so the `prop:<key>` dimensions. */
export const PROPERTY_SETS: ReadonlySet<MetricSet> = new Set(['pageviews', 'sessions', 'events']);

/** The pattern of the property dimensions, as the public catalogue names it. */
export const PROPERTY_PATTERN = `${PROPERTY_PREFIX}<key>`;

/**
 * A custom property's dimension (`prop:<key>`): the value of that key in the row's `props`. The key is
 * written into the expression as a string literal: `propertyOfDimension` allows only letters, digits, `_`,
 * `-`, `.` and spaces, so it can hold no quote or backslash (checked again here). Daily rollups keep only
 * the keys a site keeps (the header above; docs/product/stats.md, "Properties").
 */
export function propertyDimension(name: string): DimensionDef | null {
  const key = propertyOfDimension(name);
  if (key === null || /['\\]/.test(key)) return null;
  return { sql: `(props ->> '${key}')`, label: `Property ${key}` };
}

/** A dimension of a set by name: the catalogue's, or a property's (`prop:<key>`) on sets that carry them. */
export function dimensionOf(set: MetricSet, name: string): DimensionDef | null {
  const own = CATALOGUE[set].dimensions[name];
  if (own) return own;
  return PROPERTY_SETS.has(set) ? propertyDimension(name) : null;
}

/** The non-time dimensions of a set: those a rollup keeps. */
export function rollupDimensions(set: MetricSet): string[] {
  return Object.keys(CATALOGUE[set].dimensions).filter((d) => !TIME_DIMENSIONS.has(d));
}

export function primaryCount(set: MetricSet): string {
  return Object.keys(CATALOGUE[set].counts)[0] as string;
}
