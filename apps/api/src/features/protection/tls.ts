import { TLS_CLASSES, type TlsClass } from '@us/shared';

/**
 * The TLS summary the spec records with pageviews and requests: the protocol version and a coarse class of
 * the client hello, both from a short closed list, so no sender can store a fingerprint (a JA3/JA4 hash or
 * any other text) through them. Anything not on the lists is dropped (version) or `unknown` (class).
 */
export interface TlsSummary {
  version: string | null;
  cls: TlsClass | null;
}

const VERSION = /^(?:TLS\s*v?\s*1(?:\.([0-3]))?|(SSL\s*v?\s*3(?:\.0)?))$/i;

/** `TLSv1.3`, `tlsv1.2`, `TLS 1.0`, `TLSv1`, `SSLv3` → the version as stored; anything else → null. */
export function tlsVersionOf(text: string | null | undefined): string | null {
  const m = VERSION.exec((text ?? '').trim());
  if (!m) return null;
  return m[2] ? 'SSLv3' : `TLSv1.${m[1] ?? '0'}`;
}

/**
 * The edge SDK's connection classes (packages/edge gate.ts `tlsClassOf`) say what was negotiated, not how the
 * client hello looked: a legacy cipher or an old protocol reads as `legacy`; TLS 1.2+ with an AEAD cipher (or
 * plain HTTP) says nothing about the hello, and the version is recorded anyway.
 */
const EDGE_CLASSES: Readonly<Record<string, TlsClass | null>> = {
  'tls1.3': null,
  'tls1.2': null,
  'tls1.2-legacy': 'legacy',
  'tls-old': 'legacy',
  none: null,
};

export function tlsClassOf(text: string | null | undefined): TlsClass | null {
  const t = (text ?? '').trim().toLowerCase();
  if (!t) return null;
  if (Object.hasOwn(EDGE_CLASSES, t)) return EDGE_CLASSES[t] as TlsClass | null;
  return (TLS_CLASSES as readonly string[]).includes(t) ? (t as TlsClass) : 'unknown';
}

export function tlsSummary(version: string | null | undefined, cls: string | null | undefined): TlsSummary {
  return { version: tlsVersionOf(version), cls: tlsClassOf(cls) };
}

/** The proxy header `x-svc-client-tls: <version>[ <class>]`, e.g. `TLSv1.3 modern`. */
export function tlsOfHeader(header: string | null | undefined): TlsSummary {
  const parts = (header ?? '')
    .slice(0, 64)
    .trim()
    .split(/[\s;,]+/);
  const version = tlsVersionOf(parts[0]);
  // A class alone (no known version first) is read too.
  return { version, cls: tlsClassOf(version ? parts[1] : parts[0]) };
}

/** What the `tls` column holds: `TLSv1.3 modern`, `TLSv1.2`, `legacy`, or null when nothing is known. */
export function tlsText(t: TlsSummary): string | null {
  const text = [t.version, t.cls].filter(Boolean).join(' ');
  return text || null;
}

/** Major versions from which each browser speaks TLS 1.2 or later by default. */
const MODERN_BROWSER: [RegExp, number][] = [
  [/\b(?:Chrome|CriOS|Edg|EdgA|EdgiOS)\/(\d+)/, 70],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 63],
  [/\bVersion\/(\d+)(?:\.\d+)* (?:Mobile\/\S+ )?Safari\//, 12],
];

/** The user agent names a browser recent enough that it always speaks TLS 1.2+ with a browser's client hello. */
export function claimsModernBrowser(ua: string | null | undefined): boolean {
  const s = ua ?? '';
  if (!s.startsWith('Mozilla/5.0 (')) return false;
  return MODERN_BROWSER.some(([re, min]) => {
    const m = re.exec(s);
    return !!m && Number(m[1]) >= min;
  });
}

const OLD_VERSIONS = new Set(['SSLv3', 'TLSv1.0', 'TLSv1.1']);

/**
 * The sign `tls-mismatch`: a user agent claiming a modern browser over TLS older than 1.2, or with a client
 * hello unlike a browser's (`legacy`, `non-browser`): the software is not the browser it says it is.
 */
export function tlsMismatch(ua: string | null | undefined, tls: TlsSummary): boolean {
  const odd = (tls.version !== null && OLD_VERSIONS.has(tls.version)) || tls.cls === 'legacy' || tls.cls === 'non-browser';
  return odd && claimsModernBrowser(ua);
}

export const TLS_MISMATCH = 'tls-mismatch';
