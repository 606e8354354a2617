// Receiving one uploaded file of an import: stored as it arrives, bounded while it streams, and its header
// checked against the source's format once stored (a file of another table or tool is refused whole,
// naming the columns expected).
import type { Orm } from '@us/db';
import { pgPoolOf } from '@us/db';
import { IMPORT_LIMITS, type Import } from '@us/shared';
import { AppError, badRequest } from '../../core/errors.ts';
import { readCsv } from './csv-records.ts';
import { formatOf } from './formats/index.ts';
import { overlappingPlausibleFile } from './formats/plausible.ts';
import { dropFile, fileChunks, storeFile, UploadReplaced } from './import-files.ts';
import { ALREADY_STARTED, TOO_MANY_FILES } from './import-row.ts';

export const fileTooLarge = () =>
  new AppError(
    413,
    `A file may be at most ${IMPORT_LIMITS.fileBytes / 1024 / 1024} MB: export a shorter period per file (or split the file at a line) and upload each part under its own name`,
  );

/** A Plausible file of a table another file of the import holds over some of the same days: refused, naming it. */
export function overlapRefusal(imp: Pick<Import, 'source'>, name: string, others: string[]): (() => AppError) | null {
  const overlapping = imp.source === 'plausible' ? overlappingPlausibleFile(name, others) : null;
  if (!overlapping) return null;
  return () =>
    badRequest(
      'fileName',
      `${overlapping} holds the same table over some of the same days: its rows and this file's would be added up. Upload one export per period (periods side by side are fine), or delete this import and start again`,
    );
}

/** Stores the body as the import's file `name` (replacing one of that name) and checks its header; answers its size. */
export async function receiveFile(orm: Orm, imp: Import, name: string, body: AsyncIterable<Buffer>): Promise<number> {
  const pool = await pgPoolOf(orm);
  const bytes = await storeFile(pool, imp.id, name, body, IMPORT_LIMITS.fileBytes, fileTooLarge, {
    maxFiles: IMPORT_LIMITS.filesPerImport,
    started: ALREADY_STARTED,
    full: TOO_MANY_FILES,
    // Checked again under the import's lock: two overlapping files sent at once both passed the early look.
    conflict: (others) => overlapRefusal(imp, name, others),
  }).catch((e: unknown) => {
    // Sent again meanwhile (another upload of the name): that one is kept; this one says so.
    if (e instanceof UploadReplaced) throw new AppError(409, e.message, { field: 'fileName' });
    throw e;
  });
  const refusal = await checkUploadedHeader(orm, imp, name);
  if (refusal) {
    await dropFile(pool, imp.id, name);
    throw badRequest('file', refusal);
  }
  return bytes;
}

/** What is wrong with a stored file's name or header for its import's source, or null. */
export async function checkUploadedHeader(orm: Orm, imp: Import, name: string): Promise<string | null> {
  const format = formatOf(imp.source);
  const csv = await readCsv(fileChunks(await pgPoolOf(orm), imp.id, name), {
    commentPrefix: format.commentPrefix,
    afterLine: 0,
    bad: () => undefined,
  });
  csv.close();
  return csv.header ? format.check(name, csv.header) : `${name} is empty: upload the file as exported`;
}
