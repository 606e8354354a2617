// Request and answer schemas of the stats engine (spec §2 "Stats spec", "Summary"; §4 "Analytics").
// Names of dimensions, filters and counts are checked against the catalogue by the engine (400 with
// `field`), not here, so the catalogue stays the one list.
import { z } from 'zod';
import { zId } from './common.ts';
import { ImportedMeta } from './imports.ts';
import { zSegmentParam } from './segments.ts';

export const METRIC_SETS = ['pageviews', 'sessions', 'requests', 'events'] as const;
export type MetricSet = (typeof METRIC_SETS)[number];
export const LANES = ['human', 'bot', 'internal'] as const;
export type Lane = (typeof LANES)[number];

export const STATS_LIMITS = {
  batch: 40,
  defaultDays: 7,
  maxDays: 3660,
  rawDays: 90,
  defaultRows: 100,
  maxRows: 1000,
  maxOffset: 100_000,
  defaultTopRows: 10,
  /** A world map asks for every country at once (about 250 codes). */
  maxTopRows: 300,
  /** Filters in one question (a dashboard offers one per dimension; saved segments keep at most 6). */
  maxFilters: 20,
} as const;

const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Give a day as YYYY-MM-DD');
/** A dimension, filter or count name; the longest is a property's (`prop:` and a key of up to 64). */
const zName = z.string().min(1).max(69);

/** The fields of a stats spec (spec §2), shared by the query string, the JSON body and batch entries. */
export const StatsSpecFields = {
  metrics: z.enum(METRIC_SETS).describe('Metric set: pageviews, sessions, requests or events'),
  by: zName
    .optional()
    .describe(
      'Dimension to group by (see GET /v1/stats/catalogue); `hour`, `day`, `week` (ISO, Monday’s date) and `month` (YYYY-MM) give a series',
    ),
  lane: z.enum(LANES).optional().describe('human (People), bot (Crawlers) or internal; each metric set has a default'),
  days: z
    .number()
    .int()
    .min(1, 'Give days of 1 or more')
    .max(STATS_LIMITS.maxDays, `Give days of at most ${STATS_LIMITS.maxDays}`)
    .optional()
    .describe('Calendar days ending today in the site’s time zone; 1 = today so far. Default 7'),
  from: zDay.optional().describe('First day (YYYY-MM-DD, site time zone); instead of days'),
  to: zDay.optional().describe('Last day (YYYY-MM-DD), inclusive; default today'),
  compare: z.boolean().optional().describe('Add the previous period (a single day: the same weekday a week earlier)'),
  compareFrom: zDay
    .optional()
    .describe('Compare with a custom earlier range from this day (YYYY-MM-DD) instead; implies compare'),
  compareTo: zDay.optional().describe('Last day of the custom comparison range; default: as many days as the period'),
  where: z
    .record(zName, z.string().max(2048))
    .optional()
    .describe(
      `Filters: dimension name → value; \`(none)\` matches an empty value; at most ${STATS_LIMITS.maxFilters}. In a query string: where.<name>=<value>`,
    ),
  sort: zName.optional().describe('A count of the metric set to rank by, such as sessions or pageviews'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(STATS_LIMITS.maxRows)
    .optional()
    .describe(
      `Most rows returned (default ${STATS_LIMITS.defaultRows}); series by a time (hour, day, week, month) are never cut`,
    ),
  offset: z
    .number()
    .int()
    .min(0, 'Give offset of 0 or more')
    .max(STATS_LIMITS.maxOffset, `Give offset of at most ${STATS_LIMITS.maxOffset}`)
    .optional()
    .describe('Ranked rows to skip before the first returned, for paging through a table (with limit); default 0'),
  search: z
    .string()
    .max(200, 'Search for at most 200 characters')
    .optional()
    .describe('Only values of `by` containing this text, in any case (totals stay those of every value)'),
};

export const StatsSpec = z.object(StatsSpecFields).strict();
export type StatsSpec = z.infer<typeof StatsSpec>;

export const SiteStatsInput = z.object({ id: zId, ...StatsSpecFields, segment: zSegmentParam }).strict();
export type SiteStatsInput = z.infer<typeof SiteStatsInput>;

/**
 * Query-string routes take filters as `where.<name>=<value>` parameters: the schema lets extra text
 * parameters through and the engine turns `where.*` ones into `where`, refusing any other unknown name
 * (400 with `field`). (A record field cannot be a query parameter in the OpenAPI generator.)
 */
// Typed as text, number or boolean so the known fields (days, compare, …) still fit the index signature;
// the engine reads a where.<name> value as text.
export const zWhereParam = z.union([z.string().max(2048), z.number(), z.boolean()]);
const { where: _where, ...specFieldsWithoutWhere } = StatsSpecFields;
export const SiteStatsQuery = z.object({ id: zId, ...specFieldsWithoutWhere, segment: zSegmentParam }).catchall(zWhereParam);
export type SiteStatsQuery = z.infer<typeof SiteStatsQuery>;

/** One row: the dimension's value (null = not known / none) and every count of the metric set. */
export const StatsRow = z.object({
  value: z.string().nullable(),
  counts: z.record(z.string(), z.number()),
});
export type StatsRow = z.infer<typeof StatsRow>;

export const StatsPeriod = z.object({
  from: z.string().describe('First day, YYYY-MM-DD in the site’s time zone'),
  to: z.string().describe('Last day, inclusive'),
  totals: z.record(z.string(), z.number()),
  rows: z.array(StatsRow),
});

export const StatsResult = z.object({
  metrics: z.enum(METRIC_SETS),
  by: z.string().nullable(),
  lane: z.enum(LANES),
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  /** raw rows (within 90 days), daily rollups (older), or both. */
  source: z.enum(['raw', 'rollups', 'mixed']),
  /** The names of the counts in `totals` and in each row, the sort count first. */
  counts: z.array(z.string()),
  sort: z.string(),
  totals: z.record(z.string(), z.number()),
  rows: z.array(StatsRow),
  /** More rows exist than `limit`. */
  truncated: z.boolean(),
  /** With compare: the previous period, or null with `comparison.reason` saying why there is none. */
  previous: StatsPeriod.nullable().optional(),
  comparison: z.object({ available: z.boolean(), reason: z.string().nullable() }).optional(),
  /** Present when the range has days of imported history (docs/product/imports.md). */
  imported: ImportedMeta.optional(),
});
export type StatsResult = z.infer<typeof StatsResult>;

export const StatsBatchInput = z
  .object({
    id: zId,
    queries: z
      .record(z.string().min(1).max(64), z.unknown())
      .refine((q) => Object.keys(q).length >= 1, 'Give at least one query')
      .refine((q) => Object.keys(q).length <= STATS_LIMITS.batch, `Give at most ${STATS_LIMITS.batch} queries`)
      .describe(`Name → stats spec, at most ${STATS_LIMITS.batch}`),
  })
  .strict();
export type StatsBatchInput = z.infer<typeof StatsBatchInput>;

export const StatsRefusal = z.object({
  error: z.object({ status: z.number().int(), code: z.string(), title: z.string(), field: z.string().optional() }),
});
export const StatsBatchResult = z.record(z.string(), z.union([StatsResult, StatsRefusal]));
export type StatsBatchResult = z.infer<typeof StatsBatchResult>;

// ---------- catalogue ----------

export const CatalogueMetricSet = z.object({
  description: z.string(),
  defaultLane: z.enum(LANES),
  lanes: z.array(z.enum(LANES)),
  dimensions: z.array(z.string()),
  filters: z.array(z.string()),
  counts: z.array(z.string()),
  defaultSort: z.string(),
});

export const StatsCatalogue = z.object({
  metricSets: z.record(z.enum(METRIC_SETS), CatalogueMetricSet),
  /** Top-table dimension → the metric set it ranks. */
  topDimensions: z.record(z.string(), z.enum(METRIC_SETS)),
  dimensionLabels: z.record(z.string(), z.string()),
  dimensionPatterns: z
    .array(
      z.object({
        pattern: z.string().describe('A family of names, such as prop:<key>'),
        metricSets: z.array(z.enum(METRIC_SETS)),
        description: z.string(),
      }),
    )
    .describe('Dimensions (and filters) named by a pattern rather than listed: custom properties'),
  limits: z.object({ batch: z.number(), defaultDays: z.number(), rawDays: z.number(), maxRows: z.number() }),
});
export type StatsCatalogue = z.infer<typeof StatsCatalogue>;

// ---------- summary ----------

const rangeFields = {
  days: StatsSpecFields.days,
  from: StatsSpecFields.from,
  to: StatsSpecFields.to,
};

export const SummaryQuery = z
  .object({
    id: zId,
    ...rangeFields,
    compareFrom: StatsSpecFields.compareFrom,
    compareTo: StatsSpecFields.compareTo,
    segment: zSegmentParam,
  })
  .catchall(zWhereParam);
export type SummaryQuery = z.infer<typeof SummaryQuery>;

export const TONES = ['good', 'bad', 'flat'] as const;

export const SummaryMeasure = z.object({
  value: z.number(),
  previous: z.number().nullable(),
  /** Relative change in percent (one decimal); null without a previous figure or from zero. */
  change: z.number().nullable(),
  tone: z.enum(TONES),
});
export type SummaryMeasure = z.infer<typeof SummaryMeasure>;

export const SUMMARY_MEASURES = [
  'sessions',
  'pageviews',
  'fromSearch',
  'averageSession',
  'bounceRate',
  'singlePageVisits',
  'pagesPerSession',
] as const;
export type SummaryMeasureName = (typeof SUMMARY_MEASURES)[number];

export const Summary = z.object({
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  previousFrom: z.string(),
  previousTo: z.string(),
  comparison: z.object({ available: z.boolean(), reason: z.string().nullable() }),
  source: z.enum(['raw', 'rollups', 'mixed']),
  /** Present when the range has days of imported history (docs/product/imports.md). */
  imported: ImportedMeta.optional(),
  /**
   * sessions, pageviews, fromSearch (sessions from a search engine): counts. averageSession: seconds of
   * visible time per session. bounceRate: percent of sessions with a single pageview. singlePageVisits:
   * count. pagesPerSession: pageviews per session (two decimals).
   */
  measures: z.object(
    Object.fromEntries(SUMMARY_MEASURES.map((m) => [m, SummaryMeasure])) as Record<SummaryMeasureName, typeof SummaryMeasure>,
  ),
});
export type Summary = z.infer<typeof Summary>;

// ---------- top tables ----------

export const TOP_DIMENSIONS = [
  'source',
  'channel',
  'medium',
  'referrer',
  'campaign',
  'page',
  'page_type',
  'country',
  'device',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'bot',
  'category',
  'kind',
  'network',
  'path',
  'status',
  'cache',
  'decision',
  'event',
  'label',
  'language',
  'timezone',
  'screen',
  'exit_page',
] as const;
export type TopDimension = (typeof TOP_DIMENSIONS)[number];

export const TopQuery = z
  .object({
    id: zId,
    dimension: zName.describe('A top-table dimension (see GET /v1/stats/catalogue, topDimensions)'),
    ...rangeFields,
    count: z
      .enum(['sessions', 'pageviews', 'value_sum'])
      .optional()
      .describe(
        "For page dimensions: count sessions where each began (default) or pageviews; for event and label: rank by the events' summed values (value_sum) instead of their number",
      ),
    lane: StatsSpecFields.lane,
    limit: z
      .number()
      .int()
      .min(1)
      .max(STATS_LIMITS.maxTopRows)
      .optional()
      .describe(`Rows, default ${STATS_LIMITS.defaultTopRows}, at most ${STATS_LIMITS.maxTopRows}`),
    segment: zSegmentParam,
  })
  .catchall(zWhereParam);
export type TopQuery = z.infer<typeof TopQuery>;

export const TopTable = z.object({
  dimension: z.string(),
  metrics: z.enum(METRIC_SETS),
  /** What each row counts: sessions, pageviews, requests or events. */
  count: z.string(),
  lane: z.enum(LANES),
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  total: z.number(),
  rows: z.array(
    z.object({
      value: z.string().nullable(),
      count: z.number(),
      share: z.number(),
      exitRate: z
        .number()
        .nullable()
        .optional()
        .describe("exit_page only: percent of the page's pageviews that ended a visit (null without pageviews)"),
    }),
  ),
  truncated: z.boolean(),
  /** Credit to show beside the figures (network data comes from DB-IP, CC BY 4.0). */
  attribution: z.string().nullable(),
});
export type TopTable = z.infer<typeof TopTable>;

// ---------- now (the dashboard's live figures; tRPC only) ----------

export const NOW = {
  /** Visitors "now": people with a pageview in this many last minutes. */
  minutes: 5,
  /** The last pageviews shown: at most this many, of at most this many last minutes. */
  recent: 20,
  recentMinutes: 30,
  /** An answer is reused for this long by every caller on the node. */
  shareMs: 3_000,
} as const;

export const NowInput = z.object({ id: zId }).strict();
export type NowInput = z.infer<typeof NowInput>;

const RecentPageview = z.object({
  at: z.string().describe('When, ISO 8601'),
  path: z.string(),
  source: z.string().nullable().describe('Referrer host, or null (direct / none)'),
  country: z.string().nullable(),
  device: z.string(),
  lane: z.enum(['human', 'bot', 'internal']),
});

export const NowOutput = z.object({
  asOf: z.string(),
  minutes: z.number().int(),
  visitors: z.number().int().describe(`People with a pageview in the last ${NOW.minutes} minutes`),
  pageviews: z.number().int().describe(`Their pageviews in the last ${NOW.minutes} minutes`),
  recent: z.array(RecentPageview).describe(`The last pageviews of any lane, newest first (last ${NOW.recentMinutes} minutes)`),
});
export type NowOutput = z.infer<typeof NowOutput>;

export const SitesNowOutput = z.object({
  asOf: z.string(),
  minutes: z.number().int(),
  sites: z.array(z.object({ id: z.string(), visitors: z.number().int() })),
});
export type SitesNowOutput = z.infer<typeof SitesNowOutput>;

// ---------- sparklines (the sites list; tRPC only) ----------

export const SPARKLINE_DAYS = 7;

export const SitesSparklinesOutput = z.object({
  sites: z.array(
    z.object({
      id: z.string(),
      days: z.array(z.string()).describe(`The last ${SPARKLINE_DAYS} days in the site's time zone, oldest first`),
      visitors: z.array(z.number().int()).describe('People per day, oldest first'),
      pageviews: z.array(z.number().int()),
    }),
  ),
});
export type SitesSparklinesOutput = z.infer<typeof SitesSparklinesOutput>;
