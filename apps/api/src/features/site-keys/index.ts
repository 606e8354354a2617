// The site-keys wing's public surface: what other wings may use (the layering lint holds them to this file).
export { findSiteBySecret } from './key-lookup.ts';
export { createKeyRow, keyRecord, publicKeyOf } from './keys.ts';
