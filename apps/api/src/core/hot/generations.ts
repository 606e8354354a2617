import type { HotStore } from './store.ts';

/**
 * One counter in the hot store for "some site changed" (settings, hostnames, keys, the site itself).
 * Every successful `sites:write` operation bumps it; collect nodes compare it at most about once a second
 * and drop their whole site cache when it moved (faces/collect/site-cache.ts), so a deleted key or hostname
 * stops being accepted within about a second on every node, without a hot-store round trip per report.
 */
export const GENERATION_KEY = 'sites:generation';
export const GENERATION_TTL_SECONDS = 30 * 86_400;

export async function bumpSitesGeneration(hot: HotStore): Promise<void> {
  await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
}
