// Request and answer schemas of history imports (issue 40 item 6: not in the spec; the design is ours,
// docs/product/imports.md): an import of a site from one source's export files, uploaded one by one
// (PUT .../files/{fileName}, a stream: not an operation), then started; a job reads them into imported
// daily figures.
import { z } from 'zod';
import { zId } from './common.ts';

export const IMPORT_SOURCES = ['plausible', 'umami', 'ga4'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];

export const IMPORT_STATUSES = ['awaiting_files', 'queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export const IMPORT_LIMITS = {
  /** Bytes of one uploaded file. */
  fileBytes: 200 * 1024 * 1024,
  filesPerImport: 20,
  /** Imports awaiting files, queued or running at once per site. */
  unfinishedPerSite: 3,
  /** Imports a site keeps, done ones included. */
  perSite: 100,
  /** Records read over all files of an import. */
  rowsPerImport: 5_000_000,
  /** Bad rows kept with their file, line and reason (all are counted). */
  badSamples: 100,
  fileName: 200,
  defaultPage: 20,
  maxPage: 100,
} as const;

/** A file name as uploaded: letters, digits, `.`, `_`, `-`, ending in .csv. */
export const IMPORT_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,195}\.csv$/;

export const ImportFile = z.object({ name: z.string(), bytes: z.number() });

export const ImportBadRow = z.object({
  file: z.string(),
  line: z.number().describe('Line of the file (1 = the header)'),
  reason: z.string(),
});

export const Import = z.object({
  id: z.string(),
  siteId: z.string(),
  source: z.enum(IMPORT_SOURCES),
  status: z.enum(IMPORT_STATUSES),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  files: z.array(ImportFile),
  progress: z.object({
    rowsRead: z.number().describe('Records read from the files so far'),
    rowsStored: z.number().describe('Imported figures (rollup rows) stored'),
    badRows: z.number().describe('Records refused (each named in badRowSamples, up to 100)'),
  }),
  badRowSamples: z.array(ImportBadRow),
  days: z.object({ from: z.string(), to: z.string() }).nullable().describe('First and last day the files cover'),
  skippedDays: z.array(z.string()).describe('Days not imported: the site has its own data on them'),
  replacedDays: z.array(z.string()).describe('Days an earlier import of the site covered: its figures were replaced'),
  error: z.string().nullable(),
});
export type Import = z.infer<typeof Import>;

export const CreateImportInput = z
  .object({
    id: zId,
    source: z.enum(IMPORT_SOURCES, { error: 'Use source plausible, umami or ga4' }).describe('Whose export the files are'),
  })
  .strict();
export type CreateImportInput = z.infer<typeof CreateImportInput>;

const zImportId = z.string().min(1).max(64).describe('The import id (from GET /v1/sites/{id}/imports)');

export const ImportParams = z.object({ id: zId, importId: zImportId }).strict();
export type ImportParams = z.infer<typeof ImportParams>;

export const ImportListQuery = z
  .object({
    id: zId,
    limit: z
      .number()
      .int()
      .min(1, 'Give limit of 1 or more')
      .max(IMPORT_LIMITS.maxPage, `Give limit of at most ${IMPORT_LIMITS.maxPage}`)
      .optional()
      .describe(`Most imports returned (default ${IMPORT_LIMITS.defaultPage})`),
    cursor: z.string().max(200).optional().describe('`nextCursor` of the previous page'),
  })
  .strict();
export type ImportListQuery = z.infer<typeof ImportListQuery>;

export const ImportList = z.object({
  items: z.array(Import).describe('Newest first'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});
export type ImportList = z.infer<typeof ImportList>;

/** What a stats answer says about imported figures over its days. */
export const ImportedMeta = z.object({
  days: z.number().describe('Days of the range with imported figures'),
  sources: z.array(z.enum(IMPORT_SOURCES)),
  included: z.boolean().describe('False when the question needed raw rows: the imported figures are left out'),
});
export type ImportedMeta = z.infer<typeof ImportedMeta>;
