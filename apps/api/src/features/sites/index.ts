// The sites wing's public surface: what other wings may use (the layering lint holds them to this file).
export { readSettings } from './settings-values.ts';
export { checkSiteLimit } from './site-limit.ts';
export { withLockedSite } from './view.ts';
