import { Site, SiteHostname } from '@us/db';
import { LookupCache } from '../../core/cache/lookup-cache.ts';
import type { Deps } from '../../core/deps.ts';
import { EVERY, GENERATION_KEY, sitesChangedBetween } from '../../core/hot/generations.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { sha256 } from '../../core/security/tokens.ts';
import { passKeyOf } from '../../features/protection/pass-key.ts';
import { type CachedSite, isReturnHost, type ProtectedSite } from '../../features/protection/protected-site.ts';
import { findSiteByPublicKey, findSiteBySecret } from '../../features/site-keys/key-lookup.ts';

/** How often a node reads the sites' generation (core/hot/generations.ts) at most. */
const GENERATION_CHECK_MS = 1_000;
/** Upper bound on staleness even if the hot store cannot be read. */
const CACHE_MS = 60_000;
/** A site still asked for in the last 10 s of its entry is looked up again in the background (lookup-cache.ts). */
const REFRESH_MS = 10_000;
/** What a generation read that failed or came too late answers (null is an answer: no site changed yet). */
const NO_ANSWER = Symbol('no answer');
const MAX_ENTRIES = 10_000;

/**
 * The site behind a public key and its hostnames, and the site behind a server secret, cached per key
 * (secrets by their hash) and invalidated through the generation counter: the changed sites' entries, and the
 * keys and secrets known to be no site's. One lookup per key at a time,
 * refreshed ahead of expiry while in use (`LookupCache`).
 */
export function siteCache(deps: Pick<Deps, 'orm' | 'hot' | 'logger' | 'ciphers'>, opts: { now?: () => number } = {}) {
  const now = opts.now ?? Date.now;
  const options = {
    ttlMs: CACHE_MS,
    refreshMs: REFRESH_MS,
    maxEntries: MAX_ENTRIES,
    now,
    onRefreshError: (e: unknown) => deps.logger.warn(`collect: a cached site could not be looked up again (${String(e)})`),
  };
  const byKey = new LookupCache<CachedSite>(options);
  /** Site ids by the hash of their secret (null: no live site has it). */
  const bySecret = new LookupCache<string | null>(options);
  const byId = new LookupCache<ProtectedSite | null>(options);
  let generation: string | null | undefined;
  let drops = 0;
  let checkedAt = 0;
  let failedAt = Number.NEGATIVE_INFINITY;

  /**
   * `always`: look even if it was looked at within the last second (the gate: a rotated pass key counts at
   * once), unless a look failed within it (a slow or gone store holds up at most one request a second).
   */
  async function checkGeneration(always = false) {
    const at = now();
    if (at - checkedAt < GENERATION_CHECK_MS && (!always || at - failedAt < GENERATION_CHECK_MS)) return;
    checkedAt = at;
    // Never hold a report up for long when the hot store is slow or gone: cached sites expire anyway.
    const current = await hotAnswer<string | null | typeof NO_ANSWER>(deps.hot, deps.hot.get(GENERATION_KEY), 200, NO_ANSWER);
    if (current === NO_ANSWER) {
      failedAt = at;
      deps.logger.warn('collect: could not read the site generation within 200 ms; cached sites expire on their own');
      return;
    }
    if (current !== generation) {
      const changed = await sitesChangedBetween(deps.hot, generation, current);
      if (changed === EVERY) {
        byKey.clear();
        bySecret.clear();
        byId.clear();
      } else {
        // A key or secret not known before may be the changed site's now.
        byKey.forget((_, v) => v.site === null || changed.has(v.site.id));
        bySecret.forget((_, id) => id === null || changed.has(id));
        byId.forget((id) => changed.has(id));
      }
      // Every change: a site looked up again carries a new number (the gate's memo of its config is rebuilt).
      drops += 1;
      generation = current;
    }
  }

  async function lookUpKey(key: string): Promise<CachedSite> {
    const em = deps.orm.em.fork();
    const site = await findSiteByPublicKey(em, key);
    const hostnames = new Set<string>();
    if (site) {
      const rows = await em.find(SiteHostname, { site: site.id });
      for (const r of rows) hostnames.add(r.hostname.toLowerCase());
    }
    return { site, hostnames };
  }

  async function lookUpProtected(siteId: string): Promise<ProtectedSite | null> {
    const em = deps.orm.em.fork();
    const site = await em.findOne(Site, { id: siteId });
    if (!site) return null;
    const rows = await em.find(SiteHostname, { site: siteId });
    const returnHosts = rows
      .filter(isReturnHost)
      .map((r) => r.hostname.toLowerCase())
      .sort();
    return { site, passKey: await passKeyOf(deps, em, siteId), returnHosts, generation: drops };
  }

  return {
    async siteFor(key: string): Promise<CachedSite> {
      await checkGeneration();
      return byKey.get(key, lookUpKey);
    },

    /**
     * The site behind a secret's id with what the gate needs (pass key, return hostnames), or null when it
     * is gone. Cached like the rest, but the generation is read on every call (one hot-store read): a change
     * to the site, its hostnames, its bot settings or its pass key counts from the next decision on, so a
     * `us_pass` signed with a rotated key is refused at once.
     */
    async protectedSite(siteId: string): Promise<ProtectedSite | null> {
      await checkGeneration(true);
      return byId.get(siteId, lookUpProtected);
    },

    /**
     * True when this node holds an answer for the site key, known or unknown, or is looking it up: no lookup of the
     * caller's own is needed (it joins that one), so it costs the address no lookup of its budget. (Counted, every
     * report of a busy address that arrived while its site was looked up again, as when its entry expired during a
     * slow query, took one; past 120 in the minute they were refused 429.)
     */
    knowsKey(key: string): boolean {
      return byKey.peek(key) !== undefined || byKey.isLoading(key);
    },

    /**
     * True when this node already knows the secret as a live site's, or is looking it up (no lookup of the caller's
     * own needed: it joins that one).
     */
    knowsSecret(secret: string): boolean {
      const hash = sha256(secret);
      return !!bySecret.peek(hash) || bySecret.isLoading(hash);
    },

    /** The id of the site a server secret belongs to, or null (unknown, rotated or deleted). */
    async siteIdForSecret(secret: string): Promise<string | null> {
      await checkGeneration();
      return bySecret.get(sha256(secret), async () => (await findSiteBySecret(deps.orm.em.fork(), secret))?.id ?? null);
    },
  };
}

export type SiteCache = ReturnType<typeof siteCache>;
