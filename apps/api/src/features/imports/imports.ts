// A site's imports: make one, list them, read one's progress, start it, delete it (with its figures).
// The files are uploaded in between by PUT .../files/{name} (faces/uploads.ts, `acceptFile` below).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type CreateImportInput,
  IMPORT_FILE_NAME,
  IMPORT_LIMITS,
  type Import,
  type ImportList,
  type ImportListQuery,
  type ImportParams,
} from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { readInstantCursor } from '../../core/instant-cursor.ts';
import { checkSiteLimit } from '../sites/index.ts';
import { ALREADY_STARTED, IMPORT_COLUMNS, type ImportRow, NO_IMPORT, TOO_MANY_FILES, toImport } from './import-row.ts';
import { overlapRefusal } from './upload.ts';

async function loadRow(em: EntityManager, siteId: string, importId: string, lock = false): Promise<ImportRow> {
  if (!isUuid(importId)) throw NO_IMPORT();
  const [row] = await em.execute<ImportRow[]>(
    `select ${IMPORT_COLUMNS} from imports i where i.id = ? and i.site_id = ?${lock ? ' for update of i' : ''}`,
    [importId, siteId],
  );
  if (!row) throw NO_IMPORT();
  return row;
}

export async function createImport(em: EntityManager, actor: Actor, input: CreateImportInput): Promise<Import> {
  const site = await loadSite(em, actor, input.id);
  const id = randomUUID();
  // Each import not yet done may hold 20 files of 200 MB until read: a site has a few at a time.
  await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'imports',
      IMPORT_LIMITS.unfinishedPerSite,
      `This site has ${IMPORT_LIMITS.unfinishedPerSite} imports not done yet: start or delete one first`,
      `status in ('awaiting_files', 'queued', 'running')`,
    );
    await checkSiteLimit(
      tx,
      site.id,
      'imports',
      IMPORT_LIMITS.perSite,
      `This site has ${IMPORT_LIMITS.perSite} imports: delete an old one first (its figures go with it)`,
    );
    await tx.execute('insert into imports (id, site_id, source) values (?, ?, ?)', [id, site.id, input.source]);
  });
  return toImport(await loadRow(em, site.id, id));
}

/** The cursor after an import: `<created_at ISO>_<id>`. */
const cursorOf = (i: Import) => `${i.createdAt}_${i.id}`;

export async function listImports(em: EntityManager, actor: Actor, input: ImportListQuery): Promise<ImportList> {
  const site = await loadSite(em, actor, input.id);
  const limit = input.limit ?? IMPORT_LIMITS.defaultPage;
  const after = input.cursor ? readInstantCursor(input.cursor, 'nextCursor') : null;
  const rows = await em.execute<ImportRow[]>(
    `select ${IMPORT_COLUMNS} from imports i
      where i.site_id = ?${after ? ` and (date_trunc('milliseconds', i.created_at), i.id) < (?::timestamptz, ?::uuid)` : ''}
      order by date_trunc('milliseconds', i.created_at) desc, i.id desc limit ?`,
    [site.id, ...(after ? [after.at, after.id] : []), limit + 1],
  );
  const items = rows.slice(0, limit).map(toImport);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

export async function getImport(em: EntityManager, actor: Actor, input: ImportParams): Promise<Import> {
  const site = await loadSite(em, actor, input.id);
  return toImport(await loadRow(em, site.id, input.importId));
}

/** Queues the import for the job: it needs its files, each uploaded whole, and starts once. */
export async function startImport(em: EntityManager, actor: Actor, input: ImportParams): Promise<Import> {
  const site = await loadSite(em, actor, input.id);
  await em.transactional(async (tx) => {
    const row = await loadRow(tx, site.id, input.importId, true);
    if (row.status !== 'awaiting_files') {
      throw new AppError(
        409,
        `This import has already started (it is ${row.status.replace('_', ' ')}): make a new import to import again`,
      );
    }
    const [files] = await tx.execute<{ complete: string; partial: string }[]>(
      `select count(*) filter (where complete) as complete, count(*) filter (where not complete) as partial
         from import_files where import_id = ?`,
      [row.id],
    );
    if (Number(files?.partial ?? 0) > 0) {
      throw new AppError(409, 'A file of this import is still being uploaded: start the import once every upload has finished');
    }
    if (Number(files?.complete ?? 0) === 0) {
      throw new AppError(
        409,
        'This import has no files yet: upload them with PUT /v1/sites/{id}/imports/{importId}/files/{fileName}, then start it',
      );
    }
    await tx.execute(`update imports set status = 'queued' where id = ?`, [row.id]);
  });
  return toImport(await loadRow(em, site.id, input.importId));
}

/** Removes an import, its files and its figures; a running import stops at its next batch. */
export async function deleteImport(em: EntityManager, actor: Actor, input: ImportParams): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  await em.transactional(async (tx) => {
    // The lock waits for a batch being stored: none is stored after it (the job finds the import gone).
    const row = await loadRow(tx, site.id, input.importId, true);
    await tx.execute('delete from imported_rollups where site_id = ? and import_id = ?', [site.id, row.id]);
    await tx.execute('delete from import_staged where site_id = ? and import_id = ?', [site.id, row.id]);
    await tx.execute('delete from imports where id = ?', [row.id]);
  });
}

/**
 * Whether a file may be uploaded to the import now: the import is the site's and has not started, the name
 * is a CSV file's, and the import has room for one more file. Answers the import.
 */
export async function acceptFile(
  em: EntityManager,
  actor: Actor,
  siteId: string,
  importId: string,
  name: string,
): Promise<Import> {
  const site = await loadSite(em, actor, siteId);
  const row = toImport(await loadRow(em, site.id, importId));
  if (row.status !== 'awaiting_files') throw ALREADY_STARTED();
  if (!IMPORT_FILE_NAME.test(name)) {
    throw badRequest(
      'fileName',
      'Name the file as exported, ending in .csv (letters, digits, dots, dashes and underscores; at most 200 characters)',
    );
  }
  const others = await em.execute<{ name: string }[]>('select name from import_files where import_id = ? and name <> ?', [
    row.id,
    name,
  ]);
  // Counted again as the file is added (storeFile's slot): this early answer spares reading a body for nothing.
  if (others.length >= IMPORT_LIMITS.filesPerImport) throw TOO_MANY_FILES();
  // Looked at again as the file is added (under the import's lock): this early answer spares reading a body too.
  const overlap = overlapRefusal(
    row,
    name,
    others.map((o) => o.name),
  );
  if (overlap) throw overlap();
  return row;
}
