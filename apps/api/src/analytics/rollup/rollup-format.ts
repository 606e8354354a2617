// What one site-day's rollup is made of: the format version, its rows, and where the day's raw rows are.

/**
 * The rollup format written (`rollup_days.version`): 2 adds the dimension pairs, 3 the leave averages
 * (metric sets leave_scroll, leave_ms), 4 the filtered summary's measures per value (search_sessions,
 * single_page), 5 the dimensions timezone and screen (DIMENSION_SINCE), 6 the events' values (metric set
 * event_value), 7 sessions by exit page and its pairs, 8 browsers and operating systems (with their versions;
 * the names beside exit pages), 9 the channel dimension and its pairs (and "from search" by channel: Gmail is
 * no search engine), 10 the site's kept custom properties (`prop:<key>`, recorded in `rollup_days.properties`;
 * kept-properties.ts). Days of an older version, or rolled up with another list of kept keys than the
 * site's, are rolled up again while their raw rows exist.
 */
export const ROLLUP_VERSION = 10;

/** The raw tables a rollup counts (leave reports are read with the pageviews). */
export const ROLLED_TABLES = ['pageviews', 'events', 'requests'] as const;

/** One rollup row (format: the header of stats/catalogue.ts). */
export interface RollupRow {
  metric_set: string;
  dimension: string;
  value: string;
  lane: string;
  count: string | number;
  visitors: string | number;
}

/** A rollup row's key as one string (PostgreSQL's text never holds a NUL, so its parts cannot run together). */
export const rollupRowKey = (r: RollupRow) => `${r.metric_set}\x00${r.dimension}\x00${r.value}\x00${r.lane}`;

/** Where the day's rows are: table names (raw tables or the generator's staging tables) and their conditions. */
export interface RollupSource {
  tables: Record<'pageviews' | 'events' | 'requests' | 'page_leaves', string>;
  /** Condition on a raw table's rows of the day (no alias), and its bind values (`?`). */
  where: string;
  whereParams: unknown[];
  /** The requests' condition instead, when it differs (written out, no bind values; incremental rollups, rollup-delta.ts). */
  requestsWhere?: string;
  /** Condition on `page_leaves l` rows that may belong to the day's pageviews, and its bind values. */
  leavesWhere: string;
  leavesParams: unknown[];
  /**
   * The pageviews' last UTC day (`YYYY-MM-DD`), when `leavesWhere` takes later days: leave reports stored after it
   * are read only when their pageview is among the source's. A day's own partitions hold nearly all of its
   * pageviews' reports, and the later ones mostly the next days' (rollup-streams.ts, `leaveStatement`).
   */
  lateLeavesAfter?: string;
  /**
   * The site's kept property keys as its settings hold them (`keptProperties`): pageviews and events get a
   * `prop:<key>` grouping per key that can be one, and the list is recorded with the day (`rollup_days.properties`).
   * None when absent (the demo generator's staging tables).
   */
  keptProperties?: readonly string[];
  /** Incremental rollups (rollup-delta.ts): which rows and leave reports the last rollup counted. */
  counted?: CountedRows;
}

/** Conditions (written out, no bind values) on a raw table's rows and on `page_leaves l` rows: the last rollup counted them. */
export interface CountedRows {
  rows: string;
  leaves: string;
}
