import { SiteHostname } from '@us/db';
import { LookupCache } from '../../core/cache/lookup-cache.ts';
import type { Deps } from '../../core/deps.ts';
import { EVERY, GENERATION_KEY, sitesChangedBetween } from '../../core/hot/generations.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { INGRESS_LIVE } from './go-live.ts';

/** Where the service's own proxy sends a live proxy hostname's traffic. */
export interface ProxyRoute {
  siteId: string;
  /** The origin as stored: scheme, host and port only (`https://origin.example.com`). */
  origin: string;
}

/** A proxy-mode hostname whose traffic the service carries: validated (status active). One rule, also the gate's. */
export function isLiveProxy(h: Pick<SiteHostname, 'proxy' | 'edgeStatus'>): boolean {
  return h.proxy && h.edgeStatus === INGRESS_LIVE;
}

/** How often a node reads the sites' generation at most (as the collect path's site cache). */
const GENERATION_CHECK_MS = 1_000;
/** Upper bound on staleness even if the hot store cannot be read. */
const CACHE_MS = 60_000;
const REFRESH_MS = 10_000;
/** Hostnames a node remembers at most, answers and "not a live proxy hostname" alike; a full cache forgets the oldest. */
const MAX_ENTRIES = 10_000;
const NO_ANSWER = Symbol('no answer');
/** A lookup the caller's budget did not allow (`routeFor`). */
export const LOOKUP_REFUSED = Symbol('lookup refused');

/**
 * The live proxy hostnames' routes, per node: hostname → {siteId, origin}, or null for any other hostname
 * (negative answers are cached too, so a Host that is no proxy hostname costs one lookup a minute, not one
 * per request). The changed sites' routes and the names that were no live proxy hostname are dropped when the
 * sites' generation moves (`core/hot/generations.ts`: every change to a site or its hostnames bumps it), read at
 * most once a second in the background, so a request never waits for the hot store and a change is seen within
 * about a second.
 */
export function proxyRoutes(deps: Pick<Deps, 'orm' | 'hot' | 'logger'>, opts: { now?: () => number } = {}) {
  const now = opts.now ?? Date.now;
  const cache = new LookupCache<ProxyRoute | null>({
    ttlMs: CACHE_MS,
    refreshMs: REFRESH_MS,
    maxEntries: MAX_ENTRIES,
    now,
    onRefreshError: (e) => deps.logger.warn(`proxy: a hostname's route could not be looked up again (${String(e)})`),
  });
  let generation: string | null | undefined;
  let checkedAt = 0;
  // Names that were live proxy hostnames at their last lookup (insertion order: the oldest first). A cache drop
  // (any site's change) forgets their routes; looking them up again never spends a caller's budget, so a live
  // site's visitors behind a busy address are not refused after one.
  const wereLive = new Set<string>();

  function checkGeneration() {
    const at = now();
    if (at - checkedAt < GENERATION_CHECK_MS) return;
    checkedAt = at;
    hotAnswer<string | null | typeof NO_ANSWER>(deps.hot, deps.hot.get(GENERATION_KEY), 200, NO_ANSWER).then(async (current) => {
      if (current === NO_ANSWER || current === generation) return;
      const before = generation;
      generation = current;
      // The first read only learns the generation: nothing cached before it can be older than the lookups.
      if (before === undefined) return;
      const changed = await sitesChangedBetween(deps.hot, before, current);
      // A name that was no live proxy hostname may be the changed site's now.
      if (changed === EVERY) cache.clear();
      else cache.forget((_, route) => route === null || changed.has(route.siteId));
    });
  }

  async function lookUp(hostname: string): Promise<ProxyRoute | null> {
    // At most one proxy-mode row per hostname (adding a second is refused), beside any non-proxy rows.
    const row = await deps.orm.em
      .fork()
      .findOne(SiteHostname, { hostname, proxy: true }, { fields: ['site', 'proxy', 'origin', 'edgeStatus'] });
    wereLive.delete(hostname);
    if (!row?.origin || !isLiveProxy(row)) return null;
    if (wereLive.size >= MAX_ENTRIES) wereLive.delete(wereLive.values().next().value as string);
    wereLive.add(hostname);
    return { siteId: row.site.id, origin: row.origin };
  }

  return {
    /**
     * The route of a bare lower-case hostname (no port, no trailing dot): a cached answer at once, else the
     * one lookup under way for it, else a new lookup: at once for a name that was live at its last lookup, else
     * if `admit` allows it (the caller's budget for names this node holds no answer for), or LOOKUP_REFUSED.
     */
    routeFor(
      hostname: string,
      admit: () => Promise<boolean>,
    ): ProxyRoute | null | Promise<ProxyRoute | null | typeof LOOKUP_REFUSED> {
      checkGeneration();
      if (cache.peek(hostname) !== undefined || cache.isLoading(hostname) || wereLive.has(hostname)) {
        return cache.get(hostname, lookUp);
      }
      return admit().then((ok) => (ok ? cache.get(hostname, lookUp) : LOOKUP_REFUSED));
    },
  };
}

export type ProxyRoutes = ReturnType<typeof proxyRoutes>;
