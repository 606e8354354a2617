export * from './lock.ts';
export * from './retention.ts';
export * from './rollup.ts';
export * from './scheduler.ts';
export * from './result-days.ts';
export * from './search-pull.ts';
export * from './billing.ts';
export * from './rollup-today.ts';
