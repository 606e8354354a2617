import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteHostname } from '@us/db';
import { HOSTNAME_LIMITS } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import { hostnameInput, isLiveProxy, verificationName, verificationValue } from '../hostnames/index.ts';
import { internalKeyOf, newSealedInternalKey } from './internal-key.ts';
import { parseInternalMark, signInternalMark, verifyInternalMark } from './mark.ts';

/**
 * Internal links (spec §4, §8): a link on a verified (or validated proxy-mode) hostname's first-party path
 * `/_us/internal?token=…`, valid ten minutes, usable once per browser, that marks the browser as the
 * team's own for 90 days. Only the token's hash is kept, in hot state, with the site and a fingerprint
 * of the site's internal key: rotating the key also ends links issued before.
 */
interface StoredLink {
  siteId: string;
  linkId: string;
  keyFp: string;
  expiresAt: number;
}

const linkKey = (token: string) => `internal-link:${sha256(token)}`;
const keyFingerprint = (internalKey: string | null) => (internalKey ? sha256(`internal-key\n${internalKey}`).slice(0, 32) : '');

export async function issueInternalLink(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; hostname: string },
): Promise<{ url: string; expiresAt: string }> {
  const site = await loadSite(em, actor, input.id);
  const hostname = hostnameInput(input.hostname);
  const row = await em.findOne(SiteHostname, { site: site.id, hostname });
  if (!row) {
    throw badRequest(
      'hostname',
      `${hostname} is not a hostname of this site: add it and verify it first, or use a verified hostname of this site`,
    );
  }
  // A proxy-mode hostname is proven only once it is live (its records seen); before that anyone
  // could have added someone else's hostname.
  if (row.proxy && !isLiveProxy(row)) {
    throw badRequest(
      'hostname',
      `Finish the proxy setup of ${hostname} first: it is not live yet (status ${row.edgeStatus ?? 'unknown'}); set the records in proxy.records of GET /v1/sites/${site.id}/hostnames/${hostname}, then check with POST /v1/sites/${site.id}/hostnames/${hostname}/verify`,
    );
  }
  if (!row.verifiedAt && !row.proxy) {
    throw badRequest(
      'hostname',
      `Verify ${hostname} first: add the TXT record ${verificationName(hostname)} = ${verificationValue(row.verifyToken)}, then call POST /v1/sites/${site.id}/hostnames/${hostname}/verify`,
    );
  }
  const token = randomToken(32);
  const ttl = HOSTNAME_LIMITS.internalLinkTtlSeconds;
  const expiresAt = Date.now() + ttl * 1000;
  const internalKey = internalKeyOf(deps.ciphers, site);
  if (!internalKey) {
    // Sealed with another app secret (it changed): only a new key helps, and the owner can make one.
    throw new AppError(
      409,
      `This site's internal key was sealed with another app secret and cannot be read: replace it with POST /v1/sites/${site.id}/internal-link/rotate (browsers marked before stop counting as internal), then ask for a link again`,
    );
  }
  const stored: StoredLink = { siteId: site.id, linkId: randomToken(12), keyFp: keyFingerprint(internalKey), expiresAt };
  await deps.hot.set(linkKey(token), JSON.stringify(stored), ttl);
  return {
    url: `https://${hostname}/_us/internal?token=${encodeURIComponent(token)}`,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/** Replaces the site's internal key: every earlier mark, and every link not yet followed, stops counting. */
export async function rotateInternalKey(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  actor: Actor,
  input: { id: string },
): Promise<{ rotated: true }> {
  const site = await loadSite(em, actor, input.id);
  site.internalKeyEnc = newSealedInternalKey(deps.ciphers);
  site.internalKey = null;
  await em.flush();
  return { rotated: true };
}

export type LinkOutcome =
  | { kind: 'unknown-host' }
  | { kind: 'refused'; status: 404 | 410; message: string }
  | { kind: 'marked'; siteName: string; cookieValue: string };

const GONE = 'This internal link has expired or is not valid: links work for ten minutes. Ask for a new one in the dashboard.';

/**
 * Follows an internal link arriving on `host` (a hostname of some site, else `unknown-host`): on success
 * returns the mark to set. A browser that already carries a valid mark made by this same link is refused.
 */
export async function followInternalLink(
  deps: Deps,
  em: EntityManager,
  host: string,
  token: string | undefined,
  currentMark: string | undefined,
): Promise<LinkOutcome> {
  const hostRows = await em.find(SiteHostname, { hostname: host }, { fields: ['site'] });
  if (hostRows.length === 0) return { kind: 'unknown-host' };
  if (!token || token.length > 200) return { kind: 'refused', status: 410, message: GONE };

  const raw = await deps.hot.get(linkKey(token));
  let link: StoredLink | null = null;
  try {
    link = raw ? (JSON.parse(raw) as StoredLink) : null;
  } catch {
    link = null;
  }
  if (!link || link.expiresAt <= Date.now()) return { kind: 'refused', status: 410, message: GONE };
  const linkSiteId = link.siteId;
  if (!hostRows.some((r) => r.site.id === linkSiteId)) {
    return {
      kind: 'refused',
      status: 404,
      message: 'This internal link belongs to another site: open it on the hostname it was made for.',
    };
  }
  const site = await em.findOne(Site, { id: link.siteId });
  if (!site) return { kind: 'refused', status: 410, message: GONE };
  const internalKey = internalKeyOf(deps.ciphers, site);
  if (!internalKey || keyFingerprint(internalKey) !== link.keyFp) {
    return {
      kind: 'refused',
      status: 410,
      message: 'This internal link was made before the internal key was rotated: ask for a new one in the dashboard.',
    };
  }
  const markSite = { id: site.id, internalKey };
  if (verifyInternalMark(markSite, currentMark) && parseInternalMark(currentMark)?.linkId === link.linkId) {
    return {
      kind: 'refused',
      status: 410,
      message: 'This browser has already used this internal link and is marked as internal: nothing more to do.',
    };
  }
  return { kind: 'marked', siteName: site.name, cookieValue: signInternalMark(markSite, link.linkId) };
}
