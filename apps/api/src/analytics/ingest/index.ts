export * from './buffer.ts';
export * from './flusher.ts';
export { MemoryIngestBuffer } from './memory-buffer.ts';
export { RedisIngestBuffer } from './redis-buffer.ts';
export type { IngestRoom } from './rooms.ts';
export { createIngestBuffer, type Ingest, maintainPartitions, type StartIngestArgs, startIngest } from './start.ts';
