export * from './analytics/index.ts';
export * from './citus.ts';
export * from './embedded.ts';
export * from './entities/index.ts';
export * from './faults.ts';
export * from './migrate.ts';
export * from './orm.ts';
export * from './postgres-settings.ts';
