export * from './buffer.ts';
export * from './flusher.ts';
export { type Ingest, maintainPartitions, type StartIngestArgs, startIngest } from './start.ts';
