import type { EventEmitter } from 'node:events';

/** What of a `pg` pool and its clients this guard touches (structural, so `pg`'s types are not needed). */
type PoolClient = EventEmitter & { release?: (err?: Error | boolean) => void };
type Pool = EventEmitter;

/**
 * Gives back to the pool every connection that ends (PostgreSQL stopped, restarted, or cut it) while
 * someone holds it, and makes the holder's own later release a no-op.
 *
 * Why: MikroORM's transactions are Kysely's controlled transactions, which release their connection
 * only when `begin`, `commit` or `rollback` succeeds (kysely-org/kysely#1990). When PostgreSQL goes away
 * in the middle of a transaction, all three fail, and the connection stayed checked out for good: each
 * outage took connections out of the pool until every query (the ingest flush included) waited for
 * ever, and `orm.close()` never returned, so a shutdown hung. A connection that has ended can never be
 * used again, so releasing it (with an error: the pool discards it and opens a new one when needed) is
 * always safe.
 */
export function releaseEndedConnections(pool: Pool): void {
  pool.on('connect', (client: PoolClient) => {
    // pg-pool sets `client.release` afresh at every checkout; wrap each one so that it runs once.
    let release: ((err?: Error | boolean) => void) | undefined;
    let held = false;
    Object.defineProperty(client, 'release', {
      configurable: true,
      get: () => release,
      set: (fn: (err?: Error | boolean) => void) => {
        held = true;
        release = (err) => {
          if (!held) return;
          held = false;
          fn(err);
        };
      },
    });
    client.once('end', () => {
      if (held) release?.(new Error('the connection to PostgreSQL ended while it was in use'));
    });
  });
}
