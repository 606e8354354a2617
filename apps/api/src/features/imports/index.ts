// The imports wing: history imported from other analytics tools' exports (docs/product/imports.md).

export { acceptFile } from './imports.ts';
export { runDueImports } from './imports-job.ts';
export { fileTooLarge, receiveFile } from './upload.ts';
