export * from './columns.ts';
export * from './db.ts';
export * from './dead-letters.ts';
export * from './factories.ts';
export * from './ids.ts';
export * from './insert.ts';
export * from './partitions.ts';
