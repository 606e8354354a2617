export * from './db.ts';
export * from './insert.ts';
export * from './partitions.ts';
export * from './columns.ts';
export * from './dead-letters.ts';
export * from './ids.ts';
