// The import formats by source: the one table the import job looks a source up in.
import type { ImportFormat, ImportSource } from './format.ts';
import { ga4Format } from './ga4.ts';
import { plausibleFormat } from './plausible.ts';
import { umamiFormat } from './umami.ts';

const FORMATS: Record<ImportSource, ImportFormat> = {
  plausible: plausibleFormat,
  umami: umamiFormat,
  ga4: ga4Format,
};

/** The format reading a source's files. */
export function formatOf(source: ImportSource): ImportFormat {
  return FORMATS[source];
}

export type { ImportedRow, ImportFormat, ImportSink, ImportSource, NumberedRecord, StagedRecord } from './format.ts';
