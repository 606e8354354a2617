import type { Site, SiteHostname } from '@us/db';
import { isLiveProxy } from '../hostnames/index.ts';

export interface CachedSite {
  site: Site | null;
  hostnames: Set<string>;
}

/** What the gate needs of a site besides its settings: its pass key and the hostnames a check may return to. */
export interface ProtectedSite {
  site: Site;
  passKey: string;
  /** Verified hostnames, and proxy-mode hostnames the edge platform has validated (status active); sorted. */
  returnHosts: string[];
  /** Changes whenever the cache was dropped (a site changed somewhere): part of derived caches' keys. */
  generation: number;
}

/** A hostname a check may send a visitor back to (spec §2: only verified hostnames of the site, or live proxy ones). */
export function isReturnHost(h: Pick<SiteHostname, 'proxy' | 'verifiedAt' | 'edgeStatus'>): boolean {
  return h.proxy ? isLiveProxy(h) : h.verifiedAt != null;
}
