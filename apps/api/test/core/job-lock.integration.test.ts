// The jobs' advisory locks: held on a connection of their own (not one of the pool's, which at start-up, when every
// job runs at once, left requests no connection), one run of a job per process, and no connection kept between runs.
import { createOrm, migrate, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { JOB_LOCK_APPLICATION, withJobLock } from '../../src/core/job-lock.ts';
import { createOwnDatabase } from '../support/faults.ts';

describe('job locks', () => {
  let db: { url: string; drop(): Promise<void> };
  let orm: Orm;
  beforeAll(async () => {
    db = await createOwnDatabase(inject('databaseUrl'));
    // A small pool, and a query that finds it full fails after a while instead of waiting forever.
    orm = await createOrm(db.url, { poolMax: 2, waitForConnectionMs: 10_000 });
    await migrate(orm);
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  /** A run that holds its lock until `open` is called; `entered` resolves once it holds it. */
  function heldRun(job: Parameters<typeof withJobLock>[1], opts: { wait?: boolean } = {}, on: Orm = orm) {
    let open!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const run = withJobLock(
      on,
      job,
      async () => {
        entered();
        await gate;
        return job;
      },
      opts,
    );
    return { run, inside, open };
  }

  const lockSessions = async () => {
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from pg_stat_activity where application_name = ? and datname = current_database()`,
        [JOB_LOCK_APPLICATION],
      );
    return rows[0]?.n;
  };

  it('leaves the pool to requests while jobs hold their locks', async () => {
    const runs = (['billing', 'alerts', 'emailReports'] as const).map((job) => heldRun(job));
    try {
      await Promise.all(runs.map((r) => r.inside));
      // Three jobs hold their locks; a request's query still gets one of the pool's two connections.
      expect(await orm.em.fork().getConnection().execute('select 1 as ok')).toEqual([{ ok: 1 }]);
      expect(await lockSessions()).toBe(1);
    } finally {
      for (const r of runs) r.open();
    }
    expect(await Promise.all(runs.map((r) => r.run))).toEqual([
      { ran: true, result: 'billing' },
      { ran: true, result: 'alerts' },
      { ran: true, result: 'emailReports' },
    ]);
    // No connection is kept between runs.
    await expect.poll(lockSessions).toBe(0);
  });

  it('runs one run of a job at a time in a process: another is refused, or waits with `wait`', async () => {
    const first = heldRun('billing');
    await first.inside;
    const refused = await withJobLock(orm, 'billing', async () => 'second');
    const waiting = heldRun('billing', { wait: true });
    let waited = false;
    void waiting.inside.then(() => {
      waited = true;
    });
    expect(refused).toEqual({ ran: false });
    expect(waited).toBe(false);
    first.open();
    await waiting.inside;
    waiting.open();
    expect(await first.run).toEqual({ ran: true, result: 'billing' });
    expect(await waiting.run).toEqual({ ran: true, result: 'billing' });
  });

  it('is refused a lock another process holds, and waits for it with `wait`', async () => {
    const other = await createOrm(db.url, { poolMax: 1 });
    try {
      const theirs = heldRun('alerts', {}, other);
      await theirs.inside;
      expect(await withJobLock(orm, 'alerts', async () => 'mine')).toEqual({ ran: false });
      const mine = withJobLock(orm, 'alerts', async () => 'mine', { wait: true });
      theirs.open();
      expect(await theirs.run).toEqual({ ran: true, result: 'alerts' });
      expect(await mine).toEqual({ ran: true, result: 'mine' });
    } finally {
      await other.close();
    }
  });
});
