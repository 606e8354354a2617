// The rollup tallies' own thread (rollup-thread.ts starts it): reads a site-day's COPY streams on
// connections of its own, counts the day's rollup rows and writes them, so the API's event loop never
// runs the counting or the rows' encoding (in it, a 360k-pageview day paused it for 80–120 ms at times).
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { pooledCopyOut } from './copy-connections.ts';
import type { RollupSource } from './rollup-format.ts';
import { tallySiteDay } from './rollup-streams.ts';
import { type RunStatement, replaceSiteDayRollup } from './rollup-write.ts';

/** Roll up one site-day: its rows are where `src` says, counted on `atOnce` connections. */
export interface RollupTask {
  id: number;
  src: RollupSource;
  atOnce: number;
  siteId: string;
  day: string;
  /** The instant the rows reach (the current day), null for a complete day. */
  until: string | null;
}

const { url, connections } = workerData as { url: string; connections: number };
// Idle connections close soon: the thread lives as long as the process, a rollup runs now and then.
const pool = new pg.Pool({ connectionString: url, max: connections, idleTimeoutMillis: 1000, allowExitOnIdle: true });
// A connection that breaks while idle (a database restart) is dropped; the next stream takes a new one.
pool.on('error', () => {});
const copyOut = pooledCopyOut(pool);

/** `fn` in a transaction on a connection of the pool (discarded if anything fails). */
async function inTransaction(fn: (run: RunStatement) => Promise<void>) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await fn((sql, params) => client.query(sql, params));
    await client.query('commit');
    client.release();
  } catch (e) {
    client.release(e instanceof Error ? e : true);
    throw e;
  }
}

parentPort?.on('message', async (task: RollupTask) => {
  try {
    const rows = await tallySiteDay(task.src, copyOut, task.atOnce);
    await inTransaction((run) => replaceSiteDayRollup(run, task.siteId, task.day, rows, task.until));
    parentPort?.postMessage({ id: task.id, rows: rows.length });
  } catch (e) {
    const error = e instanceof Error ? { message: e.message, code: (e as { code?: string }).code } : { message: String(e) };
    parentPort?.postMessage({ id: task.id, error });
  }
});
