import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

export type SqlConnection = ReturnType<EntityManager['getConnection']>;
/** Anything that reaches PostgreSQL: the ORM, an entity manager, or its connection. */
export type AnalyticsDb = MikroORM | EntityManager | SqlConnection;

export function connectionOf(db: AnalyticsDb): SqlConnection {
  if ('em' in db) return db.em.getConnection();
  if ('getConnection' in db) return db.getConnection();
  return db;
}

export const ANALYTICS_TABLES = ['pageviews', 'events', 'requests', 'page_leaves'] as const;
export type AnalyticsTable = (typeof ANALYTICS_TABLES)[number];

/**
 * Every table holding a site's analytics data, keyed by `site_id`: the raw rows, their rollups and the
 * per-day store with its arrivals, the imported figures. Deleting a site's traffic empties each; on Citus each is distributed
 * by `site_id` (citus.ts).
 */
export const SITE_DATA_TABLES = [
  ...ANALYTICS_TABLES,
  'daily_rollups',
  'rollup_days',
  'rollup_failures',
  'result_days',
  'day_arrivals',
  'imported_rollups',
  'import_staged',
] as const;

const DAY_MS = 86_400_000;
/** The last UTC day asked for and its bounds: a flush asks once per row, a page report once or twice. */
let lastDay = { from: 0, until: 0, day: '' };

/** The UTC day of an instant, `YYYY-MM-DD` (a `RangeError` for an invalid one, as `toISOString` gives). */
export function utcDay(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (ms >= lastDay.from && ms < lastDay.until) return lastDay.day;
  const from = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay = { from, until: from + DAY_MS, day: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.day;
}

/** Days whose partitions this process has already ensured; cleared when partitions are dropped. */
export const ensuredDays = new Set<string>();
