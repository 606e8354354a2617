import type { Orm } from '@us/db';
import type { Logger } from './logger.ts';

/** What the scheduler (or a test) gives a job's run: its log, the sites it may touch, its clock, whether to wait for the lock. */
export interface JobRunOptions {
  logger?: Pick<Logger, 'error' | 'warn'> | undefined;
  siteIds?: string[] | undefined;
  now?: Date | undefined;
  wait?: boolean;
}

/** Advisory lock keys of the background jobs (first int of the two-int form: this service). */
const LOCK_SPACE = 0x7573;
export const JOB_LOCKS = {
  rollups: 1,
  siteRetention: 2,
  rawRetention: 3,
  resultDays: 4,
  searchPull: 5,
  billing: 6,
  todayRollups: 7,
  emailReports: 8,
  alerts: 9,
  /** Not a job's run: the import job's claims, one at a time across nodes (a transaction lock). */
  importClaims: 10,
  sitePurge: 11,
} as const;

/** A job's advisory lock key in PostgreSQL's two-int form, for a transaction lock (`pg_advisory_xact_lock`). */
export const jobLockKey = (job: keyof typeof JOB_LOCKS): [number, number] => [LOCK_SPACE, JOB_LOCKS[job]];

/**
 * Runs `fn` only when this node gets the job's session-level advisory lock (`pg_try_advisory_lock`),
 * held on one dedicated pooled connection (outside any transaction) for the run and released after.
 * Answers `{ ran: false }` when another node holds it: the job runs once across nodes. With `wait`, it
 * waits for the lock instead (tests, one-off runs).
 */
export async function withJobLock<T>(
  orm: Orm,
  job: keyof typeof JOB_LOCKS,
  fn: () => Promise<T>,
  opts: { wait?: boolean } = {},
): Promise<{ ran: true; result: T } | { ran: false }> {
  const conn = orm.em.getConnection();
  await conn.ensureConnection();
  return conn
    .getClient()
    .connection()
    .execute(async (db) => {
      const ctx = db as never;
      const [row] = await conn.execute<{ ok: boolean }[]>(
        opts.wait ? 'select pg_advisory_lock(?, ?) is not null as ok' : 'select pg_try_advisory_lock(?, ?) as ok',
        [LOCK_SPACE, JOB_LOCKS[job]],
        'all',
        ctx,
      );
      if (!row?.ok) return { ran: false as const };
      try {
        return { ran: true as const, result: await fn() };
      } finally {
        // An unlock that fails found its connection gone, and the lock with it (a session's locks end with it): the
        // run's own outcome stands (its error replaced a BEHIND, and the catch-up waited an hour).
        await conn.execute('select pg_advisory_unlock(?, ?)', [LOCK_SPACE, JOB_LOCKS[job]], 'all', ctx).catch(() => undefined);
      }
    });
}
