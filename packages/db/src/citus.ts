// Citus: when the database is a Citus coordinator (the `citus` extension is installed), the service lays out
// its tables itself after the migrations, on every start (docs/operations/scale-out.md, "Citus"): the analytics
// plane distributed by site_id and colocated; the control plane (users, workspaces, sites and what hangs off
// them) stays plain PostgreSQL on the coordinator, outside Citus's metadata, so its statements and locks are
// PostgreSQL's own. Safe to run on every node at once and again and again.
import { SITE_DATA_TABLES } from './analytics/db.ts';
import type { Orm } from './orm.ts';

/**
 * Distributed by `site_id`, all colocated with `pageviews`: every per-site statement (stats, rollups, results,
 * journeys, export) goes to the one worker holding the site. Partitions made later follow their parent.
 * A new analytics table belongs here (apps/api/test/analytics/citus-layout.integration.test.ts finds the tables
 * keyed by site and day and checks each is listed).
 */
export const CITUS_DISTRIBUTED_TABLES = SITE_DATA_TABLES;

/**
 * Control-plane tables an earlier layout made reference tables. Citus serialises every update and row lock of
 * a reference table over the whole table and all nodes, and takes those locks in its own order, so two
 * members changing two different sites at once could deadlock; as plain tables they lock rows, as on one
 * PostgreSQL. Such a layout is undone at start-up.
 */
const FORMER_REFERENCE_TABLES = ['users', 'workspaces', 'sites'] as const;

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
 * On a Citus coordinator, distributes the analytics tables that are not yet so (their rows, if any, move to
 * the workers as it goes) and makes plain tables of former reference tables. Answers the tables it changed;
 * nothing on plain PostgreSQL.
 */
export async function layOutOnCitus(orm: Orm): Promise<string[]> {
  if (!(await isCitus(orm))) return [];
  const conn = orm.em.getConnection();
  return conn.transactional(async (trx) => {
    await conn.execute(`select pg_advisory_xact_lock(${LAYOUT_LOCK_KEY})`, [], 'run', trx);
    const known = await conn.execute<{ name: string; type: string }[]>(
      `select table_name::text as name, citus_table_type as type from citus_tables where table_name::text = any(?::text[])`,
      [`{${[...FORMER_REFERENCE_TABLES, ...CITUS_DISTRIBUTED_TABLES].join(',')}}`],
      'all',
      trx,
    );
    const done = new Set(known.filter((r) => r.type === 'distributed').map((r) => r.name));
    if (done.size < CITUS_DISTRIBUTED_TABLES.length) {
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
    // A distributed table keeps no foreign key to a plain table: each is dropped first (what it did on delete,
    // the service does: deleting a site deletes its rows).
    for (const table of CITUS_DISTRIBUTED_TABLES) await dropForeignKeys(conn, trx, table);
    if (known.some((r) => r.type === 'reference')) {
      // One call brings back every table tied to it by foreign keys (the other control-plane tables with it).
      const first = known.find((r) => r.type === 'reference')?.name;
      await conn.execute(`select undistribute_table('${first}', cascade_via_foreign_keys => true)`, [], 'run', trx);
      changed.push(...FORMER_REFERENCE_TABLES);
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

type Conn = ReturnType<Orm['em']['getConnection']>;
type Trx = Parameters<Parameters<Conn['transactional']>[0]>[0];

async function dropForeignKeys(conn: Conn, trx: Trx, table: string): Promise<void> {
  const keys = await conn.execute<{ name: string }[]>(
    `select conname::text as name from pg_constraint where conrelid = ?::regclass and contype = 'f' and conparentid = 0`,
    [table],
    'all',
    trx,
  );
  for (const k of keys) await conn.execute(`alter table ${table} drop constraint "${k.name}"`, [], 'run', trx);
}
