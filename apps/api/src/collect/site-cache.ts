import { Site, SiteHostname } from '@us/db';
import type { Deps } from '../deps.ts';
import type { HotStore } from '../hot/store.ts';
import { hotAnswer } from '../hot/within.ts';
import { sha256 } from '../security/tokens.ts';
import { passKeyOf } from '../services/bot/pass-key.ts';
import { findSiteByPublicKey, findSiteBySecret } from '../services/site-keys/key-lookup.ts';

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
/** What a generation read that failed or came too late answers (null is an answer: no site changed yet). */
const NO_ANSWER = Symbol('no answer');
const MAX_ENTRIES = 10_000;

export async function bumpSitesGeneration(hot: HotStore): Promise<void> {
  await hot.incr(GENERATION_KEY, GENERATION_TTL_SECONDS);
}

export interface CachedSite {
  site: Site | null;
  hostnames: Set<string>;
  until: number;
}

/** What the gate needs of a site besides its settings: its pass key and the hostnames a check may return to. */
export interface ProtectedSite {
  site: Site;
  passKey: string;
  /** Verified hostnames, and proxy-mode hostnames the edge platform has validated (status active); sorted. */
  returnHosts: string[];
  /** Changes whenever the cache was dropped (a site changed somewhere): part of derived caches' keys. */
  generation: number;
  until: number;
}

/** A hostname a check may send a visitor back to (spec §2: only verified hostnames of the site). */
export function isReturnHost(h: Pick<SiteHostname, 'proxy' | 'verifiedAt' | 'edgeStatus'>): boolean {
  return h.proxy ? h.edgeStatus === 'active' : h.verifiedAt != null;
}

/**
 * The site behind a public key and its hostnames, and the site behind a server secret, cached per key
 * (secrets by their hash) and invalidated through the generation counter.
 */
export function siteCache(deps: Pick<Deps, 'orm' | 'hot' | 'logger' | 'ciphers'>) {
  const byKey = new Map<string, CachedSite>();
  const bySecret = new Map<string, { siteId: string | null; until: number }>();
  const byId = new Map<string, ProtectedSite>();
  let generation: string | null | undefined;
  let drops = 0;
  let checkedAt = 0;

  async function checkGeneration(now: number) {
    if (now - checkedAt < GENERATION_CHECK_MS) return;
    checkedAt = now;
    // Never hold a report up for long when the hot store is slow or gone: cached sites expire anyway.
    const current = await hotAnswer<string | null | typeof NO_ANSWER>(deps.hot, deps.hot.get(GENERATION_KEY), 200, NO_ANSWER);
    if (current === NO_ANSWER) {
      deps.logger.warn('collect: could not read the site generation within 200 ms; cached sites expire on their own');
      return;
    }
    if (current !== generation) {
      byKey.clear();
      bySecret.clear();
      byId.clear();
      drops += 1;
      generation = current;
    }
  }

  function remember<V>(map: Map<string, V>, key: string, value: V) {
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, value);
  }

  return {
    async siteFor(key: string): Promise<CachedSite> {
      const now = Date.now();
      await checkGeneration(now);
      const hit = byKey.get(key);
      if (hit && hit.until > now) return hit;
      const em = deps.orm.em.fork();
      const site = await findSiteByPublicKey(em, key);
      const hostnames = new Set<string>();
      if (site) {
        const rows = await em.find(SiteHostname, { site: site.id });
        for (const r of rows) hostnames.add(r.hostname.toLowerCase());
      }
      const entry = { site, hostnames, until: now + CACHE_MS };
      remember(byKey, key, entry);
      return entry;
    },

    /**
     * The site behind a secret's id with what the gate needs (pass key, return hostnames), or null when it
     * is gone. Cached like the rest: a change to the site, its hostnames or its bot settings is seen within
     * about a second.
     */
    async protectedSite(siteId: string): Promise<ProtectedSite | null> {
      const now = Date.now();
      await checkGeneration(now);
      const hit = byId.get(siteId);
      if (hit && hit.until > now) return hit;
      const em = deps.orm.em.fork();
      const site = await em.findOne(Site, { id: siteId });
      if (!site) return null;
      const rows = await em.find(SiteHostname, { site: siteId });
      const returnHosts = rows
        .filter(isReturnHost)
        .map((r) => r.hostname.toLowerCase())
        .sort();
      const entry = { site, passKey: await passKeyOf(deps, em, siteId), returnHosts, generation: drops, until: now + CACHE_MS };
      remember(byId, siteId, entry);
      return entry;
    },

    /** True when this node already knows the secret as a live site's (no lookup needed). */
    knowsSecret(secret: string): boolean {
      const hit = bySecret.get(sha256(secret));
      return !!hit?.siteId && hit.until > Date.now();
    },

    /** The id of the site a server secret belongs to, or null (unknown, rotated or deleted). */
    async siteIdForSecret(secret: string): Promise<string | null> {
      const now = Date.now();
      await checkGeneration(now);
      const hash = sha256(secret);
      const hit = bySecret.get(hash);
      if (hit && hit.until > now) return hit.siteId;
      const site = await findSiteBySecret(deps.orm.em.fork(), secret);
      remember(bySecret, hash, { siteId: site?.id ?? null, until: now + CACHE_MS });
      return site?.id ?? null;
    },
  };
}

export type SiteCache = ReturnType<typeof siteCache>;
