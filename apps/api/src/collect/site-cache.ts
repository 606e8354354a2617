import { type Site, SiteHostname } from '@us/db';
import type { Deps } from '../deps.ts';
import type { HotStore } from '../hot/store.ts';
import { findSiteByPublicKey } from '../services/sites/key-lookup.ts';

/**
 * One counter in the hot store for "some site changed" (settings, hostnames, keys, the site itself).
 * Every successful `sites:write` operation bumps it; collect nodes compare it at most once per
 * `GENERATION_CHECK_MS` and drop their whole cache when it moved, so a deleted key or hostname stops
 * being accepted within about a second on every node, without a hot-store round trip per report.
 */
const GENERATION_KEY = 'sites:generation';
const GENERATION_TTL_SECONDS = 30 * 86_400;
const GENERATION_CHECK_MS = 1_000;
/** Upper bound on staleness even if the hot store cannot be read. */
const CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

export async function bumpSitesGeneration(hot: HotStore): Promise<void> {
  await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
}

export interface CachedSite {
  site: Site | null;
  hostnames: Set<string>;
  until: number;
}

/** The site behind a public key and its hostnames, cached per key and invalidated through the generation. */
export function siteCache(deps: Pick<Deps, 'orm' | 'hot' | 'logger'>) {
  const cache = new Map<string, CachedSite>();
  let generation: string | null | undefined;
  let checkedAt = 0;

  async function checkGeneration(now: number) {
    if (now - checkedAt < GENERATION_CHECK_MS) return;
    checkedAt = now;
    try {
      const current = await deps.hot.get(GENERATION_KEY);
      if (current !== generation) {
        cache.clear();
        generation = current;
      }
    } catch (err) {
      deps.logger.warn(`collect: could not read the site generation (${String(err)}); cached sites expire on their own`);
    }
  }

  return async function siteFor(key: string): Promise<CachedSite> {
    const now = Date.now();
    await checkGeneration(now);
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit;
    const em = deps.orm.em.fork();
    const site = await findSiteByPublicKey(em, key);
    const hostnames = new Set<string>();
    if (site) {
      const rows = await em.find(SiteHostname, { site: site.id });
      for (const r of rows) hostnames.add(r.hostname.toLowerCase());
    }
    const entry = { site, hostnames, until: now + CACHE_MS };
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, entry);
    return entry;
  };
}
