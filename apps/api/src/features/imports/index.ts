// The imports wing: history imported from other analytics tools' exports (docs/product/imports.md).

export { runDueImports } from './import-job.ts';
export { acceptFile } from './imports.ts';
export { fileTooLarge, receiveFile } from './upload.ts';
