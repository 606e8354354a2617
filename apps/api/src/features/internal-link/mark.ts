import { createHmac, randomBytes } from 'node:crypto';
import { HOSTNAME_LIMITS, INTERNAL_MARK_COOKIE } from '@us/shared';
import { safeEqual } from '../../core/security/tokens.ts';

/**
 * The first-party internal-traffic mark (spec §5 item 11): cookie `us_internal` on the customer's own
 * hostname, lasting 90 days, whose value is `v1.<siteId>.<linkId>.<issuedAtSeconds>.<signature>` with
 * the signature a base64url HMAC-SHA256 keyed by the site's `internalKey`. Not HttpOnly: the page script
 * reads it and sends it with its reports; the collector checks it with `verifyInternalMark`. Rotating
 * the internal key ends every earlier mark at once. `linkId` names the link that made the mark, so a
 * browser cannot use the same link twice.
 */
export interface MarkSite {
  id: string;
  /** In plain text (`internalKeyOf`); null: no mark counts. */
  internalKey: string | null;
}

export interface ParsedMark {
  siteId: string;
  linkId: string;
  issuedAt: number;
  signature: string;
}

const VERSION = 'v1';
const PART = /^[A-Za-z0-9_-]{1,64}$/;
/** Marks from a clock slightly ahead of ours are still accepted. */
const CLOCK_SKEW_SECONDS = 300;

/** A new internal key (64 hex characters): signs the marks of one site. */
export const newInternalKey = () => randomBytes(32).toString('hex');

function sign(key: string, payload: string): string {
  return createHmac('sha256', key).update(`${INTERNAL_MARK_COOKIE}\n${payload}`).digest('base64url');
}

/** The mark's cookie value for a browser that followed link `linkId` of `site` at `issuedAt` (seconds). */
export function signInternalMark(
  site: { id: string; internalKey: string },
  linkId: string,
  issuedAt = Math.floor(Date.now() / 1000),
): string {
  if (!PART.test(linkId)) throw new Error('link id must be base64url');
  const payload = `${VERSION}.${site.id}.${linkId}.${issuedAt}`;
  return `${payload}.${sign(site.internalKey, payload)}`;
}

/** The parts of a mark, or null when it is not shaped like one (nothing is checked here). */
export function parseInternalMark(value: string | null | undefined): ParsedMark | null {
  if (!value || value.length > 512) return null;
  const parts = value.split('.');
  if (parts.length !== 5) return null;
  const [version, siteId, linkId, issued, signature] = parts as [string, string, string, string, string];
  if (version !== VERSION || !PART.test(siteId) || !PART.test(linkId) || !/^\d{1,12}$/.test(issued) || !PART.test(signature)) {
    return null;
  }
  return { siteId, linkId, issuedAt: Number(issued), signature };
}

/**
 * True when `value` is a mark of this site signed with its CURRENT internal key and at most 90 days old.
 * For the collector: a report carrying a valid mark belongs to the internal lane.
 */
export function verifyInternalMark(site: MarkSite, value: string | null | undefined, now = Date.now()): boolean {
  const mark = parseInternalMark(value);
  const key = site.internalKey;
  if (!mark || mark.siteId !== site.id || !key) return false;
  const nowSeconds = Math.floor(now / 1000);
  if (mark.issuedAt > nowSeconds + CLOCK_SKEW_SECONDS) return false;
  if (nowSeconds - mark.issuedAt > HOSTNAME_LIMITS.internalMarkTtlSeconds) return false;
  const payload = `${VERSION}.${mark.siteId}.${mark.linkId}.${mark.issuedAt}`;
  return safeEqual(mark.signature, sign(key, payload));
}

/**
 * The Set-Cookie line of a mark: Path=/, 90 days, SameSite=Lax, Secure unless served over plain http on
 * a localhost name (development), and deliberately not HttpOnly (the page script reads it).
 */
export function internalMarkCookie(value: string, opts: { secure: boolean }, now = Date.now()): string {
  const maxAge = HOSTNAME_LIMITS.internalMarkTtlSeconds;
  const expires = new Date(now + maxAge * 1000).toUTCString();
  return [
    `${INTERNAL_MARK_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    `Expires=${expires}`,
    'SameSite=Lax',
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}
