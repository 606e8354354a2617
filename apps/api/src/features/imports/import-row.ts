// An import as stored (table `imports`) and as answered (the shared `Import`).
import { IMPORT_LIMITS, type Import, type ImportSourceName, type ImportStatus } from '@us/shared';
import { AppError, badRequest } from '../../core/errors.ts';

export interface ImportRow {
  id: string;
  site_id: string;
  source: ImportSourceName;
  status: ImportStatus;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  rows_read: string | number;
  rows_stored: string | number;
  bad_rows: string | number;
  bad_samples: { file: string; line: number; reason: string }[];
  day_from: string | null;
  day_to: string | null;
  skipped_days: string[];
  replaced_days: string[];
  error: string | null;
  files: { name: string; bytes: number }[] | null;
}

/** Every column of an answer, files included (a subquery), for `select ... from imports i`. */
export const IMPORT_COLUMNS = `i.id, i.site_id, i.source, i.status, i.created_at, i.started_at, i.finished_at, i.rows_read,
  i.rows_stored, i.bad_rows, i.bad_samples, to_char(i.day_from, 'YYYY-MM-DD') as day_from,
  to_char(i.day_to, 'YYYY-MM-DD') as day_to, i.skipped_days, i.replaced_days, i.error,
  (select coalesce(jsonb_agg(jsonb_build_object('name', f.name, 'bytes', f.bytes) order by f.name), '[]'::jsonb)
     from import_files f where f.import_id = i.id and f.complete) as files`;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toImport(r: ImportRow): Import {
  return {
    id: r.id,
    siteId: r.site_id,
    source: r.source,
    status: r.status,
    createdAt: iso(r.created_at) as string,
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    files: (r.files ?? []).map((f) => ({ name: f.name, bytes: Number(f.bytes) })),
    progress: { rowsRead: Number(r.rows_read), rowsStored: Number(r.rows_stored), badRows: Number(r.bad_rows) },
    badRowSamples: r.bad_samples,
    days: r.day_from && r.day_to ? { from: r.day_from, to: r.day_to } : null,
    skippedDays: [...r.skipped_days].sort(),
    replacedDays: [...r.replaced_days].sort(),
    error: r.error,
  };
}

export const NO_IMPORT = () => new AppError(404, 'No such import on this site: check the id with GET /v1/sites/{id}/imports');

export const TOO_MANY_FILES = () =>
  badRequest(
    'fileName',
    `An import takes at most ${IMPORT_LIMITS.filesPerImport} files: start this one, then make another import for the rest`,
  );
export const ALREADY_STARTED = () =>
  new AppError(409, 'This import has started: its files can no longer change. Delete it and make a new import to change them');
