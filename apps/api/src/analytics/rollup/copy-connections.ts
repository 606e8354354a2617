// COPY streams read on pooled connections (the rollup's day streams).
import { type PgClient, type PgPool, releaseOnce } from '@us/db/pg-client';
import { to as copyTo } from 'pg-copy-streams';

/** A COPY's bytes, to be read to the end, or abandoned (its connection is then discarded). */
export type CopyStream = AsyncIterable<Buffer> & { abandon(): void };

/** Starts a `COPY (…) TO STDOUT`; resolves once it is sent, with its bytes. */
export type CopyOut = (sql: string) => Promise<CopyStream>;

type Client = PgClient & { query(sql: string): Promise<unknown> };

/** Sort memory of a rollup stream: a day's narrow rows sorted by visitor stay in memory. */
export const WORK_MEM = '128MB';

/** COPY streams on a client, in the transaction the caller opened (abandoning one breaks that transaction). */
export const copyOutOn =
  (client: PgClient): CopyOut =>
  async (sql) => {
    const stream = client.query(copyTo(sql));
    stream.on('error', () => {});
    return Object.assign(stream, { abandon: () => stream.destroy() });
  };

/**
 * COPY streams each on a connection of `pool` taken for the stream's length, in a transaction of its
 * own with room to sort most days' rows in memory (a busier day's sort spills to disk), without parallel
 * workers (two streams at once already use the cores; workers measured slower). The statement starts at
 * once, so PostgreSQL sorts while the caller does something else. A stream not read to its end discards
 * its connection (it is in the middle of a COPY). Streams take connections one at a time, so they never
 * wait for one another's: a nearly full pool makes them run one after another.
 */
export const pooledCopyOut =
  (pool: PgPool): CopyOut =>
  async (sql) => {
    const client = (await pool.connect()) as Client;
    const release = releaseOnce(client);
    try {
      await client.query(`begin; set local work_mem = '${WORK_MEM}'; set local max_parallel_workers_per_gather = 0`);
    } catch (e) {
      release(asError(e));
      throw e;
    }
    const copy = client.query(copyTo(sql));
    // Errors reach the reader through the iteration; one before it starts (or after an abandon) is kept
    // by the stream for it rather than thrown as an unhandled event.
    copy.on('error', () => {});
    async function* read() {
      let ended = false;
      try {
        yield* copy as AsyncIterable<Buffer>;
        await client.query('commit');
        ended = true;
      } finally {
        release(ended ? undefined : new Error('a rollup stream stopped before its end'));
      }
    }
    return Object.assign(read(), {
      abandon: () => {
        copy.destroy();
        release(new Error('a rollup stream was abandoned'));
      },
    });
  };

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** A string as a SQL literal (as pg's escapeLiteral: quotes doubled; with backslashes, an E'' string with them doubled). */
export function sqlLiteral(v: string): string {
  const quoted = v.replace(/'/g, "''");
  return v.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/** `?` placeholders of a condition with their values written in as literals (COPY takes no parameters). */
export function inline(sql: string, params: readonly unknown[]): string {
  let i = 0;
  return sql.replace(/\?/g, () => sqlLiteral(String(params[i++])));
}
