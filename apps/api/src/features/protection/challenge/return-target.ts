import type { EntityManager } from '@mikro-orm/postgresql';
import { SiteHostname } from '@us/db';
import { isReturnHost } from '../protected-site.ts';

/**
 * Where a passed check may send a browser: only `https://<hostname><path>` with a hostname the site has
 * proven (verified by DNS, or a live proxy-mode hostname) and a path that stays
 * on that host. Both come from a signed ticket, but they are checked again here: a ticket signed by a
 * buggy or compromised edge must still not turn the check into an open redirect.
 */

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/** A lower-case DNS name (what the hostnames table holds); no port, no trailing dot, no IP literal brackets. */
export const isHostname = (h: unknown): h is string => typeof h === 'string' && HOSTNAME.test(h);

/** Longest path and query a ticket may carry back. */
export const MAX_RETURN_PATH = 4096;

/**
 * A path (and query) on the same host: starts with exactly one `/`, then printable ASCII without a
 * backslash. `//evil.example` and `/\evil.example` would leave the host; browsers drop tabs and line
 * breaks from URLs (`/<TAB>/evil.example` becomes `//evil.example`), so no control character or space
 * either; a scheme (`https://…`) never starts with `/`. Non-ASCII paths arrive percent-encoded from a URL.
 */
export function isReturnPath(p: unknown): p is string {
  return typeof p === 'string' && p.length <= MAX_RETURN_PATH && /^\/(?![/\\])[!-[\]-~]*$/.test(p);
}

/** True when `hostname` is, right now, a hostname of the site a check may return to. */
export async function isReturnHostname(em: EntityManager, siteId: string, hostname: string): Promise<boolean> {
  if (!isHostname(hostname)) return false;
  const row = await em.findOne(SiteHostname, { site: siteId, hostname }, { fields: ['proxy', 'verifiedAt', 'edgeStatus'] });
  if (!row) return false;
  // Proxy mode: proven once the edge platform validated it (as for internal links); else the TXT record.
  return isReturnHost(row);
}

/** The absolute address on the customer's host (both parts already checked). */
export const returnUrl = (hostname: string, path: string) => `https://${hostname}${path}`;
