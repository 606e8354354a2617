// The internal-link wing's public surface: what other wings may use (the layering lint holds them to this file).
export { newInternalKey } from './mark.ts';
