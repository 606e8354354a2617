// The stats wing's public surface: what other wings may use (the layering lint holds them to this file).
export { firstDataDay } from './comparability.ts';
export { answer } from './engine.ts';
export { checkWhere, normalise, whereFromParams } from './spec.ts';
export { measure, summaryOf } from './summary.ts';
