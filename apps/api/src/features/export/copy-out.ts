// Raw records leave PostgreSQL as a COPY stream: bytes straight from the server's socket, one JSON
// object per line, with no row object made in this process (a day of a large site as pages of rows
// grew the process by much garbage: docs/performance/figures.md, "Export"; COPY keeps it to the streams'
// buffers).

import type { Readable } from 'node:stream';
import { type PgClient, type PgPool, releaseOnce } from '@us/db';
import { to as copyTo } from 'pg-copy-streams';

/**
 * The lines of `select` (one text column of JSON) as a stream. COPY takes no bind parameters: the
 * statement's values are written in with the driver's own literal quoting, by `build`. CSV with a
 * delimiter and quote that JSON text never holds raw (control characters are escaped in it) passes
 * each value through as it is: no quoting, no backslash doubling.
 */
export async function copyLines(pool: PgPool, build: (literal: (v: string) => string) => string): Promise<Readable> {
  const client: PgClient = await pool.connect();
  const release = releaseOnce(client);
  try {
    // The stream lasts as long as the client reads: no statement timeout for it (reset when done).
    await (client as unknown as { query(sql: string): Promise<unknown> }).query('set statement_timeout = 0');
    const select = build((v) => client.escapeLiteral(v));
    const stream = client.query(copyTo(`copy (${select}) to stdout with (format csv, delimiter e'\\x02', quote e'\\x01')`));
    let ended = false;
    stream.once('end', () => {
      ended = true;
      (client as unknown as { query(sql: string): Promise<unknown> }).query('reset statement_timeout').then(
        () => release(),
        (e: Error) => release(e),
      );
    });
    stream.once('error', (e) => release(e));
    // Destroyed before its end (the download was cut): the connection is mid-COPY, so it is discarded.
    stream.once('close', () => {
      if (!ended) release(new Error('the export stream was closed before its end'));
    });
    return stream;
  } catch (e) {
    release(e as Error);
    throw e;
  }
}
