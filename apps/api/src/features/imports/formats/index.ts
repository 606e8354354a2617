// The import formats by source: the one table the import job looks a source up in.
import type { ImportFormat, ImportSource } from './format.ts';
import { plausibleFormat } from './plausible.ts';

// import { ga4Format } from './ga4.ts';
// import { umamiFormat } from './umami.ts';

const FORMATS: Partial<Record<ImportSource, ImportFormat>> = {
  plausible: plausibleFormat,
  // umami: umamiFormat,
  // ga4: ga4Format,
};

/** The format reading a source's files, or null when this build reads none yet. */
export function formatOf(source: ImportSource): ImportFormat | null {
  return FORMATS[source] ?? null;
}

export type { ImportedRow, ImportFormat, ImportSink, ImportSource, NumberedRecord, StagedRecord } from './format.ts';
