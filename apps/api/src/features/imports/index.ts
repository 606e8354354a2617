// The imports wing: history imported from other analytics tools' exports (docs/product/imports.md).

export { ABANDONED_IMPORT_DAYS, sweepAbandonedImports } from './abandoned.ts';
export { acceptFile } from './imports.ts';
export { runDueImports } from './imports-job.ts';
export { fileTooLarge, receiveFile } from './upload.ts';
