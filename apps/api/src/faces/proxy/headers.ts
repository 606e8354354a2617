import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { PASS_COOKIE } from '@us/protection';
import { INTERNAL_MARK_COOKIE } from '@us/shared';
import { SESSION_COOKIE } from '../../features/auth/sessions.ts';

/** The service's own cookies: never sent to an origin, never set by one. */
export const SERVICE_COOKIES: ReadonlySet<string> = new Set([PASS_COOKIE, SESSION_COOKIE, INTERNAL_MARK_COOKIE]);

/** Headers of one connection, not of the message (RFC 9110 §7.6.1), plus those no origin may see from a stranger. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Dropped from every request to the origin: hop-by-hop, and what only a trusted hop may say about the client. */
function dropFromRequest(name: string): boolean {
  return (
    HOP_BY_HOP.has(name) ||
    name.startsWith('proxy-') ||
    name.startsWith('x-svc-') ||
    name.startsWith('x-forwarded-') ||
    name === 'forwarded' ||
    name === 'x-real-ip' ||
    // Set from the origin's URL (docs/operations/proxy-mode.md); the visitor's goes in X-Forwarded-Host.
    name === 'host' ||
    // Node's server has answered `100-continue` already; the origin gets the body as it comes.
    name === 'expect'
  );
}

/** The names a Connection header lists: hop-by-hop too. */
function connectionNames(value: string | string[] | number | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : String(value ?? '');
  return new Set(
    text
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** A Cookie header without the service's cookies; undefined when nothing else is left. */
export function withoutServiceCookies(cookie: string): string | undefined {
  const kept = cookie.split(';').filter((part) => {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    return name !== '' && !SERVICE_COOKIES.has(name);
  });
  return kept.length ? kept.map((p) => p.trim()).join('; ') : undefined;
}

/** What the proxy itself says about the request (X-Forwarded-*), set after everything the client sent is cleaned. */
export interface Forwarded {
  /** The X-Forwarded-For chain: the client's address first, then the hops we trust (forwarded.ts). */
  for: string;
  proto: 'http' | 'https';
  /** The Host the visitor asked for, as sent. */
  host: string;
}

/**
 * How many times a request has passed through proxy mode: set on every request to an origin (a visitor's own is
 * dropped with the other x-svc- headers, then read first). An origin that leads back to the proxy (a hostname whose
 * origin is another proxy hostname whose origin is the first, or itself with a trailing dot) came back in as a new
 * proxied request, again and again; past MAX_PROXY_HOPS it is refused instead.
 */
export const PROXY_HOPS_HEADER = 'x-svc-proxy-hops';
/** Passes a request may make: two proxy hostnames of the service chained on purpose still work; a loop stops at its third. */
export const MAX_PROXY_HOPS = 2;

/** The passes through proxy mode a request says it made (0 when it says none, or nonsense). */
export function proxyHopsOf(incoming: IncomingHttpHeaders): number {
  const value = incoming[PROXY_HOPS_HEADER];
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 100) : 0;
}

/** The headers sent to the origin: the client's, cleaned (docs/operations/proxy-mode.md, "Header hygiene"). */
export function originRequestHeaders(incoming: IncomingHttpHeaders, forwarded: Forwarded): Record<string, string | string[]> {
  const listed = connectionNames(incoming.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || dropFromRequest(name) || listed.has(name)) continue;
    if (name === 'cookie') {
      const kept = withoutServiceCookies(Array.isArray(value) ? value.join('; ') : value);
      if (kept) out.cookie = kept;
      continue;
    }
    out[name] = value;
  }
  out['x-forwarded-for'] = forwarded.for;
  out['x-forwarded-proto'] = forwarded.proto;
  out['x-forwarded-host'] = forwarded.host;
  out[PROXY_HOPS_HEADER] = String(proxyHopsOf(incoming) + 1);
  return out;
}

/** The cookie a Set-Cookie line sets. */
const cookieName = (line: string) => line.slice(0, Math.max(0, line.indexOf('='))).trim();

/**
 * The origin's answer headers as sent on to the visitor: hop-by-hop ones dropped (Node frames the body
 * itself), the service's own headers and Set-Cookie lines for the service's cookies dropped, and a Location
 * pointing at the origin itself pointed at the visitor's host instead (the origin is reached under its own
 * name, so its absolute self-links carry that name).
 */
export function visitorResponseHeaders(
  incoming: Record<string, string | string[] | undefined>,
  rewrite: { origin: string; visitorBase: string },
): OutgoingHttpHeaders {
  const listed = connectionNames(incoming.connection);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    if (name.startsWith('proxy-') || name.startsWith('x-svc-')) continue;
    if (name === 'set-cookie') {
      const lines = (Array.isArray(value) ? value : [value]).filter((l) => !SERVICE_COOKIES.has(cookieName(l)));
      if (lines.length) out[name] = lines;
      continue;
    }
    if (name === 'location' && typeof value === 'string') {
      out[name] = rebased(value, rewrite);
      continue;
    }
    out[name] = value;
  }
  return out;
}

/** `location` on the visitor's host when it names the origin (same scheme, host and port); otherwise as it is. */
function rebased(location: string, { origin, visitorBase }: { origin: string; visitorBase: string }): string {
  if (!location.toLowerCase().startsWith(origin.toLowerCase())) return location;
  const rest = location.slice(origin.length);
  return rest === '' || rest.startsWith('/') || rest.startsWith('?') || rest.startsWith('#') ? `${visitorBase}${rest}` : location;
}
