// Citus: when the database is a Citus coordinator (the `citus` extension is installed), the service lays out
// its tables itself after the migrations, on every start (docs/operations/scale-out.md, "Citus"):
// the analytics plane distributed by site_id and colocated, the control-plane tables it joins as reference
// tables, everything else local to the coordinator. Safe to run on every node at once and again and again.
import { SITE_DATA_TABLES } from './analytics/db.ts';
import type { Orm } from './orm.ts';

/**
 * A copy on every worker: the control-plane tables the analytics statements and jobs join (sites for time
 * zones and retention) and those they reference. Small and written rarely.
 */
export const CITUS_REFERENCE_TABLES = ['users', 'workspaces', 'sites'] as const;

/**
 * Distributed by `site_id`, all colocated with `pageviews`: every per-site statement (stats, rollups, results,
 * journeys, export) goes to the one worker holding the site. Partitions made later follow their parent.
 * A new analytics table belongs here (apps/api/test/analytics/citus-layout.integration.test.ts finds the tables
 * keyed by site and day and checks each is listed).
 */
export const CITUS_DISTRIBUTED_TABLES = SITE_DATA_TABLES;

/** One key for the layout, so nodes starting together take turns. */
const LAYOUT_LOCK_KEY = 0x75730002;

/** Whether the database is a Citus coordinator. */
export async function isCitus(orm: Orm): Promise<boolean> {
  const rows = await orm.em
    .getConnection()
    .execute<{ citus: boolean }[]>(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  return rows[0]?.citus === true;
}

/**
 * On a Citus coordinator, makes the reference and distributed tables that are not yet so (their rows, if
 * any, move to the workers as it goes). Answers the tables it changed; nothing on plain PostgreSQL.
 */
export async function layOutOnCitus(orm: Orm): Promise<string[]> {
  if (!(await isCitus(orm))) return [];
  const conn = orm.em.getConnection();
  return conn.transactional(async (trx) => {
    await conn.execute(`select pg_advisory_xact_lock(${LAYOUT_LOCK_KEY})`, [], 'run', trx);
    const known = await conn.execute<{ name: string }[]>(
      `select table_name::text as name from citus_tables where table_name::text = any(?::text[])`,
      [`{${[...CITUS_REFERENCE_TABLES, ...CITUS_DISTRIBUTED_TABLES].join(',')}}`],
      'all',
      trx,
    );
    const done = new Set(known.map((r) => r.name));
    if (done.size < CITUS_REFERENCE_TABLES.length + CITUS_DISTRIBUTED_TABLES.length) {
      const [workers] = await conn.execute<{ n: number }[]>(
        `select count(*)::int as n from pg_dist_node where noderole = 'primary' and groupid <> 0`,
        [],
        'all',
        trx,
      );
      if (!workers?.n) {
        throw new Error(
          'The database is a Citus coordinator without workers: register them first (infra/citus/setup.sh), then start the service again',
        );
      }
    }
    const changed: string[] = [];
    for (const table of CITUS_REFERENCE_TABLES) {
      if (done.has(table)) continue;
      await conn.execute(`select create_reference_table('${table}')`, [], 'run', trx);
      changed.push(table);
    }
    for (const table of CITUS_DISTRIBUTED_TABLES) {
      if (done.has(table)) continue;
      const colocate = table === 'pageviews' ? 'default' : 'pageviews';
      await conn.execute(
        `select create_distributed_table('${table}', 'site_id', colocate_with => '${colocate}')`,
        [],
        'run',
        trx,
      );
      changed.push(table);
    }
    return changed;
  });
}
