// Raw records leave PostgreSQL as a COPY stream: bytes straight from the server's socket, one JSON
// object per line, with no row object made in this process (a day of a large site as pages of rows
// grew the process by much garbage: docs/performance/figures.md, "Export"; COPY keeps it to the streams'
// buffers). A download that ends early stops the statement itself (a cancel request), and says when it
// has really ended, so the download's slot is given back only then (faces/downloads.ts).

import type { Readable } from 'node:stream';
import { type PgClient, type PgPool, releaseOnce } from '@us/db';
import { to as copyTo } from 'pg-copy-streams';
import { type Backend, sendCancel } from './pg-cancel.ts';

export interface CopyOut {
  /** The lines as PostgreSQL sends them. Never destroy it: `stop` ends it. */
  stream: Readable;
  /** Resolves once the statement has ended and its connection is given back (at its end, on an error, after `stop`). */
  done: Promise<void>;
  /** Ends the statement if it still runs and resolves once it has ended and its connection is given back. */
  stop(): Promise<void>;
}

/** How long a cancelled statement may take to end before its connection is closed under it. */
const CANCEL_WAIT_MS = 5000;

type Queryable = { query(sql: string): Promise<unknown> };

/**
 * The lines of `select` (one text column of JSON) as a stream. COPY takes no bind parameters: the
 * statement's values are written in with the driver's own literal quoting, by `build`. CSV with a
 * delimiter and quote that JSON text never holds raw (control characters are escaped in it) passes
 * each value through as it is: no quoting, no backslash doubling. `limitMs` is the statement's timeout
 * (the whole file's time limit, not the stats pool's: the stream lasts as long as the client reads).
 */
export async function copyLines(
  pool: PgPool,
  build: (literal: (v: string) => string) => string,
  limitMs: number,
): Promise<CopyOut> {
  const client: PgClient = await pool.connect();
  const giveBack = releaseOnce(client);
  let settle!: () => void;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const release = (err?: Error) => {
    giveBack(err);
    settle();
  };
  const query = (sql: string) => (client as unknown as Queryable).query(sql);
  try {
    await query(`set statement_timeout = ${Math.max(1, Math.floor(limitMs))}`);
    const select = build((v) => client.escapeLiteral(v));
    const stream = client.query(copyTo(`copy (${select}) to stdout with (format csv, delimiter e'\\x02', quote e'\\x01')`));
    let over = false;
    let stopping = false;
    stream.once('end', () => {
      over = true;
      // After a stop the connection is dropped rather than reused: a cancel request still on its way
      // must not meet the next statement run on it.
      if (stopping) return release(new Error('the export stream was stopped'));
      query('reset statement_timeout').then(
        () => release(),
        (e: Error) => release(e),
      );
    });
    stream.on('error', (e: Error) => {
      over = true;
      release(e);
    });
    const stop = async () => {
      if (!over && !stopping) {
        stopping = true;
        // What is still on its way is read and dropped: a backend blocked sending to a full socket
        // acts on a cancel only once its send completes.
        stream.unpipe();
        stream.resume();
        const cut = setTimeout(() => {
          (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          release(new Error('the cancelled export statement did not end in time'));
        }, CANCEL_WAIT_MS);
        await sendCancel(client as unknown as Backend);
        await done;
        clearTimeout(cut);
      }
      await done;
    };
    // Destroyed by mistake before its end: the statement is still stopped, never left running.
    stream.once('close', () => {
      if (!over) stop().catch(() => undefined);
    });
    return { stream, done, stop };
  } catch (e) {
    release(e as Error);
    throw e;
  }
}
