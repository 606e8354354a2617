import type { Orm } from '@us/db';
import { inject } from 'vitest';

/**
 * The backends `pid` waits for. On Citus the wait happens on a worker, where PostgreSQL's pg_blocking_pids
 * on the coordinator does not see it: citus_lock_waits names both ends by their global pid (node id × 10^10
 * plus the pid of the coordinator's backend that started them).
 */
export async function blockingPids(orm: Orm, pid: number): Promise<number[]> {
  const sql =
    inject('databaseKind') === 'citus'
      ? 'select (blocking_gpid % 10000000000)::int as pid from citus_lock_waits where waiting_gpid % 10000000000 = ?'
      : 'select unnest(pg_blocking_pids(?)) as pid';
  const rows = await orm.em.getConnection().execute<{ pid: number }[]>(sql, [pid], 'all');
  return rows.map((r) => r.pid);
}
