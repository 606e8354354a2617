// Request and answer of a site export (spec §2 "Export", §4 POST /v1/sites/{id}/export and
// GET /v1/downloads/{token}, §8 limits).
import { z } from 'zod';
import { zId } from './common.ts';

export const EXPORT_LIMITS = {
  perSitePerHour: 5,
  perWorkspacePerHour: 20,
  /** How long a download link works. */
  linkSeconds: 3600,
  /** How long an export's files are kept. */
  keptSeconds: 86_400,
  /** Archive files listed at most; a longer range says where it stopped. */
  archiveFiles: 20_000,
} as const;

const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Give a day as YYYY-MM-DD');

export const ExportInput = z
  .object({
    id: zId,
    from: zDay.optional().describe('First UTC day of raw records to list (YYYY-MM-DD); default: the oldest kept'),
    to: zDay.optional().describe('Last UTC day of raw records to list (YYYY-MM-DD), inclusive; default today'),
  })
  .strict();
export type ExportInput = z.infer<typeof ExportInput>;

export const EXPORT_FILES = [
  'settings.json',
  'site-store.ndjson',
  'rollups.ndjson',
  'archive.json',
  'manifest.json',
  'imported.ndjson',
] as const;

export const ExportFile = z.object({
  name: z.enum(EXPORT_FILES),
  url: z.string().describe('Download link: no credentials needed, valid until expiresAt'),
  expiresAt: z.string(),
});

export const ExportOutput = z.object({
  id: z.string().describe('The export'),
  createdAt: z.string(),
  /** UTC days of raw records listed in archive.json. */
  from: z.string().nullable(),
  to: z.string(),
  files: z.array(ExportFile),
  archive: z.object({
    files: z.number().int().describe('Raw-record files listed in archive.json (one per kind and hour)'),
    records: z.number().int(),
    complete: z.boolean().describe('false when the list stopped at 20,000 files: export the rest with from/to'),
  }),
});
export type ExportOutput = z.infer<typeof ExportOutput>;
