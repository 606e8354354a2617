export * from './buffer.ts';
export * from './flusher.ts';
export { MemoryIngestBuffer } from './memory-buffer.ts';
export { RedisIngestBuffer } from './redis-buffer.ts';
export { createIngestBuffer, type Ingest, maintainPartitions, type StartIngestArgs, startIngest } from './start.ts';
