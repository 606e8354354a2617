export * from './counters.ts';
export * from './pause.ts';
