// The uploaded files of an import, kept in the database in chunks (any node may run the import job)
// until the job has read them. Written as they arrive, read back one chunk at a time: never a whole file
// in memory.
import { randomUUID } from 'node:crypto';
import { type PgClient, type PgPool, releaseOnce } from '@us/db';
import type pg from 'pg';

/** A pooled connection as `pg` types it (the pool's own type names only what COPY streams need). */
export type Db = pg.PoolClient;

/** Bytes per stored chunk. */
export const CHUNK_BYTES = 1024 * 1024;

/** Runs `fn` on one pooled connection. */
export async function withClient<T>(pool: PgPool, fn: (c: Db) => Promise<T>): Promise<T> {
  const client: PgClient = await pool.connect();
  const release = releaseOnce(client);
  try {
    const out = await fn(client as unknown as Db);
    release();
    return out;
  } catch (e) {
    release(e instanceof Error ? e : new Error(String(e)));
    throw e;
  }
}

/** Runs `fn` in one transaction. */
export async function inTransaction<T>(pool: PgPool, fn: (c: Db) => Promise<T>): Promise<T> {
  return withClient(pool, async (c) => {
    await c.query('begin');
    try {
      const out = await fn(c);
      await c.query('commit');
      return out;
    } catch (e) {
      await c.query('rollback').catch(() => undefined);
      throw e;
    }
  });
}

/** The file's bytes, a chunk at a time. */
export async function* fileChunks(pool: PgPool, importId: string, name: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const { rows } = await withClient(pool, (c) =>
      c.query<{ data: Buffer }>('select data from import_file_chunks where import_id = $1 and name = $2 and seq = $3', [
        importId,
        name,
        seq,
      ]),
    );
    const chunk = rows[0];
    if (!chunk) return;
    yield chunk.data;
  }
}

/**
 * What an upload checks as its file is added, under the import's lock, so uploads sent at once are counted one
 * after the other and none lands in an import that started meanwhile.
 */
export interface FileSlot {
  maxFiles: number;
  started: () => Error;
  full: () => Error;
  /** Why the file may not join the import's other files (their names), or null; asked under the import's lock. */
  conflict?: (others: string[]) => (() => Error) | null;
}

/** The same file name was sent again while this upload was received: the later one is kept, this one stops. */
export class UploadReplaced extends Error {
  constructor(readonly fileName: string) {
    super(`${fileName} was sent again while it was being received: the later upload is the one kept`);
  }
}

/**
 * Stores a file's bytes as they come, replacing any file of that name; throws what `tooBig` makes past
 * `maxBytes`, what `slot` makes when the import started or has its files already, and `UploadReplaced` when the
 * name is sent again meanwhile (each upload writes and completes only its own row, `upload`).
 */
export async function storeFile(
  pool: PgPool,
  importId: string,
  name: string,
  body: AsyncIterable<Buffer> | Iterable<Buffer>,
  maxBytes: number,
  tooBig: () => Error,
  slot?: FileSlot,
): Promise<number> {
  const upload = randomUUID();
  // A refusal is thrown once the transaction has ended, so its connection goes back to the pool whole.
  const refusal = await inTransaction(pool, async (c) => {
    const refused = slot ? await slotRefusal(c, importId, name, slot) : null;
    if (refused) return refused;
    await c.query('delete from import_files where import_id = $1 and name = $2', [importId, name]);
    await c.query('insert into import_files (import_id, name, bytes, complete, upload) values ($1, $2, 0, false, $3)', [
      importId,
      name,
      upload,
    ]);
    return null;
  });
  if (refusal) throw refusal();
  let bytes = 0;
  let seq = 0;
  let parts: Buffer[] = [];
  let held = 0;
  const flush = async () => {
    if (!held) return;
    const data = Buffer.concat(parts, held);
    parts = [];
    held = 0;
    // Under its own row's lock: a second upload of the name waits to replace it, or has replaced it already.
    const ours = await inTransaction(pool, async (c) => {
      const { rows } = await c.query('select 1 from import_files where import_id = $1 and name = $2 and upload = $3 for update', [
        importId,
        name,
        upload,
      ]);
      if (!rows.length) return false;
      await c.query('insert into import_file_chunks (import_id, name, seq, data) values ($1, $2, $3, $4)', [
        importId,
        name,
        seq++,
        data,
      ]);
      return true;
    });
    if (!ours) throw new UploadReplaced(name);
  };
  try {
    for await (const part of body) {
      bytes += part.length;
      if (bytes > maxBytes) throw tooBig();
      parts.push(part);
      held += part.length;
      if (held >= CHUNK_BYTES) await flush();
    }
    await flush();
  } catch (e) {
    await dropFile(pool, importId, name, upload);
    throw e;
  }
  const done = await withClient(pool, (c) =>
    c.query('update import_files set bytes = $3, complete = true where import_id = $1 and name = $2 and upload = $4', [
      importId,
      name,
      bytes,
      upload,
    ]),
  );
  if (!done.rowCount) throw new UploadReplaced(name);
  return bytes;
}

/** Under the import's lock: why the file may not be added (its maker), or null. */
async function slotRefusal(c: Db, importId: string, name: string, slot: FileSlot): Promise<(() => Error) | null> {
  const { rows } = await c.query<{ status: string }>('select status from imports where id = $1 for update', [importId]);
  if (rows[0]?.status !== 'awaiting_files') return slot.started;
  const { rows: others } = await c.query<{ name: string }>('select name from import_files where import_id = $1 and name <> $2', [
    importId,
    name,
  ]);
  if (others.length >= slot.maxFiles) return slot.full;
  return slot.conflict?.(others.map((o) => o.name)) ?? null;
}

export async function dropFile(pool: PgPool, importId: string, name: string, upload?: string): Promise<void> {
  // A failed upload removes its own row only: not a later upload of the same name.
  await withClient(pool, (c) =>
    upload === undefined
      ? c.query('delete from import_files where import_id = $1 and name = $2', [importId, name])
      : c.query('delete from import_files where import_id = $1 and name = $2 and upload = $3', [importId, name, upload]),
  );
}
