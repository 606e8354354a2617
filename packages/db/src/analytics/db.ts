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

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Days whose partitions this process has already ensured; cleared when partitions are dropped. */
export const ensuredDays = new Set<string>();
