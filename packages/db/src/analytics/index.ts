export * from './db.ts';
export * from './insert.ts';
export * from './partitions.ts';
