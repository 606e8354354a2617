import type { Orm } from '@us/db';
import { expect } from 'vitest';

export type Sql = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * Runs `hold` in a transaction (taking row locks), starts `request`, waits until a statement like `waiting` (a LIKE
 * pattern) waits for a lock, runs `end` in the same transaction and commits: the request goes on after the change it
 * raced, deterministically. `request` must start at once (a supertest request: end it with `.then((r) => r)`).
 */
export async function racedChange<T>(
  orm: Orm,
  hold: (sql: Sql) => Promise<unknown>,
  request: () => Promise<T>,
  waiting: string,
  end: (sql: Sql) => Promise<void> = async () => {},
): Promise<T> {
  let pending: Promise<T> | undefined;
  await orm.em.fork().transactional(async (tx) => {
    const sql: Sql = (text, params) => tx.execute(text, params);
    await hold(sql);
    pending = request();
    await expect
      .poll(async () => {
        const [row] = await orm.em
          .fork()
          .execute<{ n: number }[]>(
            `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like ?`,
            [waiting],
          );
        return row?.n ?? 0;
      })
      .toBeGreaterThan(0);
    await end(sql);
  });
  return pending as Promise<T>;
}
