import { hasSqlState } from '../faults.ts';
import { ANALYTICS_TABLES, type AnalyticsDb, connectionOf, ensuredDays, type SqlConnection, utcDay } from './db.ts';

const DAY_MS = 86_400_000;
// One fixed key for every partition change, so two nodes at start-up take turns instead of racing.
const PARTITION_LOCK_KEY = 0x75730001;
/**
 * How long making a partition waits for its parent table. It needs the table to itself, and while it
 * waits every later reader and writer of the table queues behind it: behind a transaction that stays
 * open (a long read, an export), that would stop every flush and every stats read. So it gives way after
 * this long and tries again after each of these pauses; then the caller's retry takes over (a flush
 * keeps its rows and backs off). Well under PostgreSQL's deadlock_timeout (1 s): holding one parent
 * while it waits for the next, it can close a cycle with a statement that read the next one and waits
 * for the first (reading several raw tables); giving way first, it lets that statement through
 * instead of PostgreSQL failing it as a deadlock (1 s, as it was, lost that race).
 */
const PARTITION_LOCK_WAIT_MS = 200;
const PARTITION_RETRY_PAUSES_MS = [250, 500, 1000, 2000, 4000];

function startOfUtcDay(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** `pageviews_p20261122`: identifiers are built only from a table in a fixed list and a date. */
export function partitionName(table: (typeof ANALYTICS_TABLES)[number], day: Date): string {
  return `${table}_p${utcDay(day).replaceAll('-', '')}`;
}

function daySql(d: Date): string {
  const s = utcDay(d);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw new Error(`bad day ${s}`);
  return s;
}

/**
 * Creates the day partitions of every raw table from `from`'s UTC day through `daysAhead` days after it
 * (inclusive). Idempotent and safe on every node at once (an advisory transaction lock serialises them).
 * Returns the partition names that now exist for those days.
 */
export async function ensurePartitions(db: AnalyticsDb, opts: { from: Date; daysAhead: number }): Promise<string[]> {
  const conn = connectionOf(db);
  const first = startOfUtcDay(opts.from);
  const days: Date[] = [];
  for (let i = 0; i <= Math.max(0, Math.floor(opts.daysAhead)); i++) days.push(new Date(first.getTime() + i * DAY_MS));
  return ensureDays(db, days, conn);
}

/** Creates the partitions for exactly these days (any instant within each UTC day). */
export async function ensurePartitionsForDays(db: AnalyticsDb, days: Date[]): Promise<string[]> {
  return ensureDays(db, days, connectionOf(db));
}

async function ensureDays(_db: AnalyticsDb, days: Date[], conn: SqlConnection): Promise<string[]> {
  const unique = [...new Map(days.map((d) => [utcDay(d), startOfUtcDay(d)])).values()];
  if (!unique.length) return [];
  return partitionChange(conn, async (trx) => {
    const names: string[] = [];
    for (const day of unique) {
      const next = new Date(day.getTime() + DAY_MS);
      for (const table of ANALYTICS_TABLES) {
        const name = partitionName(table, day);
        names.push(name);
        await conn.execute(
          `create table if not exists "${name}" partition of "${table}" for values from ('${daySql(day)}') to ('${daySql(next)}')`,
          [],
          'run',
          trx,
        );
      }
    }
    return names;
  });
}

type Trx = Parameters<Parameters<SqlConnection['transactional']>[0]>[0];

/**
 * Runs a change of partitions in one transaction under the partition lock, each table lock waited for at
 * most `PARTITION_LOCK_WAIT_MS`; when a table was held that long, the whole change is tried again after
 * each of `PARTITION_RETRY_PAUSES_MS`, and the last failure is thrown (lock_not_available, 55P03).
 */
async function partitionChange<T>(conn: SqlConnection, change: (trx: Trx) => Promise<T>): Promise<T> {
  const attempt = () =>
    conn.transactional(async (trx) => {
      await conn.execute('select pg_advisory_xact_lock(?)', [PARTITION_LOCK_KEY], 'run', trx);
      await conn.execute(`set local lock_timeout = ${PARTITION_LOCK_WAIT_MS}`, [], 'run', trx);
      return change(trx);
    });
  for (const pause of PARTITION_RETRY_PAUSES_MS) {
    try {
      return await attempt();
    } catch (err) {
      if (!hasSqlState(err, '55P03')) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
  return attempt();
}

/**
 * Drops every day partition of the raw tables whose day is before `cutoff`'s UTC day (whole partitions:
 * no row-by-row delete). Roll the days up into `daily_rollups` before calling this. Returns the dropped names.
 */
export async function dropPartitionsBefore(db: AnalyticsDb, cutoff: Date): Promise<string[]> {
  const limit = utcDay(cutoff);
  return dropPartitionsOfDays(
    db,
    (await partitionDays(db)).filter((d) => d < limit),
  );
}

/**
 * Drops the partitions of these UTC days (`YYYY-MM-DD`) of every raw table, in one transaction under the
 * partition lock (giving way to a transaction that holds a table, as `partitionChange` says). Names are
 * built only from the fixed table list and checked dates. Returns the dropped names.
 */
export async function dropPartitionsOfDays(db: AnalyticsDb, days: readonly string[]): Promise<string[]> {
  if (!days.length) return [];
  const conn = connectionOf(db);
  const dropped = await partitionChange(conn, async (trx) => {
    const names: string[] = [];
    for (const day of days) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`bad day ${day}`);
      for (const table of ANALYTICS_TABLES) {
        const name = `${table}_p${day.replaceAll('-', '')}`;
        const [exists] = await conn.execute<{ ok: boolean }[]>('select to_regclass(?) is not null as ok', [name], 'all', trx);
        if (!exists?.ok) continue;
        await conn.execute(`drop table if exists "${name}"`, [], 'run', trx);
        names.push(name);
      }
    }
    return names;
  });
  ensuredDays.clear();
  return dropped.sort();
}

/** The UTC days (`YYYY-MM-DD`) that have a partition in any raw table, oldest first. */
export async function partitionDays(db: AnalyticsDb): Promise<string[]> {
  const days = new Set<string>();
  for (const table of ANALYTICS_TABLES) {
    for (const name of await listPartitions(db, table)) {
      const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
      if (m) days.add(`${m[1]}-${m[2]}-${m[3]}`);
    }
  }
  return [...days].sort();
}

/** The existing day partitions of one raw table, oldest first. */
export async function listPartitions(db: AnalyticsDb, table: (typeof ANALYTICS_TABLES)[number]): Promise<string[]> {
  const conn = connectionOf(db);
  const rows = await conn.execute<{ child: string }[]>(
    `select c.relname as child from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
       join pg_class p on p.oid = i.inhparent
       join pg_namespace n on n.oid = p.relnamespace
      where n.nspname = current_schema() and p.relname = ?`,
    [table],
    'all',
  );
  return rows.map((r) => r.child).sort();
}
