// The internal-link wing's public surface: what other wings may use (the layering lint holds them to this file).
export { internalKeyOf, newSealedInternalKey, sealPlainInternalKeys } from './internal-key.ts';
