import type { Deps } from '../../core/deps.ts';
import type { HotStore } from '../../core/hot/store.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { coarseNetwork } from '../../core/security/client-info.ts';

/**
 * What crawler lookups may cost, in fair shares: a client's network (its IPv4 /24 or IPv6 /48, so that one
 * client's many addresses count as one; a free IPv6 tunnel hands anyone a /48) gets, at each site, a share of the
 * fresh lookups and of the lookups in flight, so a stranger flooding made-up crawler claims spends its own
 * share, never the site's or the node's. Per site: the address of `/collect/decide` and `/collect/verify` is the
 * caller's to name, and one customer naming a real crawler's network spent that network's share at every site.
 */
export const VERIFICATION_BUDGET = {
  /** Lookups in flight at once per node; past it, `unknown` without a question. */
  inFlight: 64,
  /** Of those, at most this many for one client network. */
  inFlightPerNetwork: 4,
  /**
   * And at most this many for one site: a customer naming made-up crawler addresses of many networks at its own
   * site (the decide and verify endpoints take any address) held every slot of the node, for every site.
   */
  inFlightPerSite: 16,
  /** Fresh lookups per client network, site and minute (counted before looking). */
  perNetworkPerMinute: 20,
  /** Fresh lookups per site and minute (counted before looking, after the network's share). */
  perSitePerMinute: 600,
} as const;

/** The share a client address belongs to at a site: a tag of the site and its /24 or /48 (addresses are never kept). */
export function networkShare(hot: HotStore, ip: string, siteId: string): string {
  return hot.tag(`${siteId}|${coarseNetwork(ip) ?? ip}`);
}

let running = 0;
const runningPerNetwork = new Map<string, number>();
const runningPerSite = new Map<string, number>();

const up = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
function down(counts: Map<string, number>, key: string) {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** Lookups running on this node now. */
export const lookupsInFlight = () => running;

/**
 * Takes a lookup slot for the network at the site, or null when the node, the site or the network has none free.
 * Taken and counted in one synchronous step: concurrent callers cannot all pass the check first. Call the returned
 * function once when the lookup is over.
 */
export function takeLookupSlot(share: string, siteId: string): (() => void) | null {
  if (
    running >= VERIFICATION_BUDGET.inFlight ||
    (runningPerSite.get(siteId) ?? 0) >= VERIFICATION_BUDGET.inFlightPerSite ||
    (runningPerNetwork.get(share) ?? 0) >= VERIFICATION_BUDGET.inFlightPerNetwork
  ) {
    return null;
  }
  running += 1;
  up(runningPerSite, siteId);
  up(runningPerNetwork, share);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running -= 1;
    down(runningPerSite, siteId);
    down(runningPerNetwork, share);
  };
}

/**
 * Counts one fresh lookup against the network's share, then (only when the network is within it) against
 * the site's, both in the hot store shared by the nodes and both before looking. A network past its share
 * costs the site nothing; a hot store that does not answer within 50 ms counts nothing and lets it pass.
 */
export async function withinLookupBudget(deps: Pick<Deps, 'hot'>, siteId: string, share: string): Promise<boolean> {
  // Each window is a minute from its first lookup (the counter's expiry is set when it is created).
  const perNetwork = await hotAnswer(deps.hot, deps.hot.incr(`fcrdns-net:${share}`, 60), 50, 0);
  if (perNetwork > VERIFICATION_BUDGET.perNetworkPerMinute) return false;
  const perSite = await hotAnswer(deps.hot, deps.hot.incr(`fcrdns-budget:${siteId}`, 60), 50, 0);
  return perSite <= VERIFICATION_BUDGET.perSitePerMinute;
}
