// COPY streams read on pooled connections (the rollup's day streams).
import type { PgClient, PgPool } from '@us/db';
import { to as copyTo } from 'pg-copy-streams';

/** Runs a `COPY (…) TO STDOUT`; resolves with its bytes, to be read to the end (or dropped on failure). */
export type CopyOut = (sql: string) => Promise<AsyncIterable<Buffer>>;

type Client = PgClient & { query(sql: string): Promise<unknown> };

/** Sort memory of a rollup stream: a day's narrow rows sorted by visitor stay in memory. */
export const WORK_MEM = '128MB';

/** COPY streams on a client, in the transaction the caller opened. */
export const copyOutOn =
  (client: PgClient): CopyOut =>
  async (sql) =>
    client.query(copyTo(sql));

/**
 * COPY streams each on a connection of `pool` taken for the stream's length, in a transaction of its
 * own with room to sort a day's rows in memory. A stream not read to its end discards its connection
 * (it is in the middle of a COPY). Streams take connections one at a time, so they never wait for one
 * another's: a nearly full pool makes them run one after another.
 */
export const pooledCopyOut =
  (pool: PgPool): CopyOut =>
  async (sql) => {
    const client = (await pool.connect()) as Client;
    try {
      await client.query(`begin; set local work_mem = '${WORK_MEM}'; set local max_parallel_workers_per_gather = 0`);
    } catch (e) {
      client.release(asError(e));
      throw e;
    }
    return (async function* () {
      let ended = false;
      try {
        yield* client.query(copyTo(sql)) as AsyncIterable<Buffer>;
        await client.query('commit');
        ended = true;
      } finally {
        client.release(ended ? undefined : new Error('a rollup stream stopped before its end'));
      }
    })();
  };

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** A string as a SQL literal (as pg's escapeLiteral: quotes doubled; with backslashes, an E'' string with them doubled). */
export function sqlLiteral(v: string): string {
  const quoted = v.replace(/'/g, "''");
  return v.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}
