import type { Orm } from '@us/db';
import pg from 'pg';
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

/** The `application_name` of the jobs' lock connection, as `pg_stat_activity` shows it. */
export const JOB_LOCK_APPLICATION = 'unseen job locks';

/** How often a run told to `wait` asks again for a lock another node holds. */
const WAIT_POLL_MS = 100;

/**
 * A process's connection for the jobs' session-level advisory locks on one database, outside the ORM's pool: every
 * job runs at start-up, and with each run's lock held on a pooled connection the jobs took the whole pool while the
 * API began serving. Made when a run takes its lock, ended once no run holds one (no idle connection between runs,
 * none left behind when the ORM closes). A connection that breaks takes its locks with it (as any session does): the
 * runs holding them finish, and the next run connects again.
 */
class LockSession {
  /** The jobs whose runs hold (or are taking) their lock here: a session's advisory locks stack, so the database would let a second run in. */
  readonly runs = new Map<string, Promise<void>>();
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;

  constructor(private readonly url: string) {}

  /** The statements asked so far, one after another (a pg client takes one at a time). */
  private asked: Promise<unknown> = Promise.resolve();

  ask(sql: string, params: unknown[]): Promise<boolean> {
    const answer = this.asked.then(async () => {
      const { rows } = await (await this.connected()).query<{ ok: boolean }>(sql, params);
      return rows[0]?.ok === true;
    });
    this.asked = answer.catch(() => undefined);
    return answer;
  }

  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, application_name: JOB_LOCK_APPLICATION });
      const lost = () => {
        if (this.client === client) this.client = null;
      };
      client.on('error', lost);
      client.on('end', lost);
      await client.connect();
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** Ends the connection once no run holds a lock on it. */
  endWhenIdle() {
    if (this.runs.size !== 0 || !this.client) return;
    const client = this.client;
    this.client = null;
    client.end().catch(() => undefined);
  }
}

const sessions = new WeakMap<Orm, LockSession>();

function lockSessionOf(orm: Orm): LockSession {
  let session = sessions.get(orm);
  if (!session) {
    session = new LockSession(orm.config.get('clientUrl') as string);
    sessions.set(orm, session);
  }
  return session;
}

/**
 * Runs `fn` only when this node gets the job's session-level advisory lock (`pg_try_advisory_lock`), held on the
 * process's lock connection (`LockSession`, outside the pool) for the run and released after. Answers
 * `{ ran: false }` when another node holds it, or a run of the job is already going on in this process: the job runs
 * once across nodes. With `wait`, it waits for the lock instead (tests, one-off runs).
 */
export async function withJobLock<T>(
  orm: Orm,
  job: keyof typeof JOB_LOCKS,
  fn: () => Promise<T>,
  opts: { wait?: boolean } = {},
): Promise<{ ran: true; result: T } | { ran: false }> {
  const session = lockSessionOf(orm);
  for (let running = session.runs.get(job); running; running = session.runs.get(job)) {
    if (!opts.wait) return { ran: false };
    await running;
  }
  let ended!: () => void;
  session.runs.set(
    job,
    new Promise<void>((resolve) => {
      ended = resolve;
    }),
  );
  const key = [LOCK_SPACE, JOB_LOCKS[job]];
  try {
    while (!(await session.ask('select pg_try_advisory_lock($1, $2) as ok', key))) {
      if (!opts.wait) return { ran: false };
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
    try {
      return { ran: true, result: await fn() };
    } finally {
      // An unlock that fails found its connection gone, and the lock with it (a session's locks end with it): the
      // run's own outcome stands (its error replaced a BEHIND, and the catch-up waited an hour).
      await session.ask('select pg_advisory_unlock($1, $2) as ok', key).catch(() => undefined);
    }
  } finally {
    session.runs.delete(job);
    ended();
    session.endWhenIdle();
  }
}
