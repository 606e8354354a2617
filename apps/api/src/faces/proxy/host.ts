import type { Urls } from '../../core/env.ts';

/** Letters, digits and hyphens between dots, at least two labels, the last not all digits (an IPv4 address). */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]*[a-z-][a-z0-9-]*$/;

/**
 * The hostname a `Host` header names, bare (lower case, no port, no trailing dot), or null when it cannot
 * be a proxy hostname at all (absent, an IP address, a single label, not a hostname): such a request is
 * never looked up.
 */
export function proxyHostOf(header: string | undefined): string | null {
  if (!header) return null;
  const colon = header.lastIndexOf(':');
  // A port is digits: `victim.example:@evil.com` is no Host (the header also names the visitor's host to the
  // origin and in rewritten redirects, where a browser would read `evil.com`).
  if (colon >= 0 && !/^\d{1,5}$/.test(header.slice(colon + 1))) return null;
  let name = (colon >= 0 ? header.slice(0, colon) : header).toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  return HOSTNAME.test(name) ? name : null;
}

/**
 * The service's own hostnames (BASE_URL, APP_URL, COLLECT_URL, CHALLENGE_URL): never proxied, whatever a
 * site registered. Kept per `urls` object (the server learns its port after listening, and replaces it).
 */
export function ownHosts(): (urls: Urls) => ReadonlySet<string> {
  let seen: Urls | undefined;
  let hosts: ReadonlySet<string> = new Set();
  return (urls) => {
    if (urls !== seen) {
      seen = urls;
      hosts = new Set([urls.base, urls.app, urls.collect, urls.challenge].map((u) => new URL(u).hostname.toLowerCase()));
    }
    return hosts;
  };
}
