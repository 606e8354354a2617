/**
 * Proxy mode (spec §5 item 9): a customer server forwards page reports (`/collect`) to the ingestion host and
 * vouches for the visitor with its server secret. The service honours the `x-svc-client-*` headers only when
 * `x-svc-proxy` carries a valid secret for the site.
 */

export interface ProxyHeadersInput {
  /** The site's server secret (`sk_live_…`). */
  secret: string;
  /** The visitor's IP address as seen by the customer server. */
  clientIp?: string | null;
  /** Two-letter country code of the visitor, when known. */
  country?: string | null;
  /** Autonomous system number of the visitor's network, when known. */
  asn?: number | string | null;
  /** Name of the visitor's network operator, when known. */
  asOrg?: string | null;
  /**
   * The TLS version of the visitor's connection to your server (e.g. `TLSv1.3`, Node's `socket.getProtocol()`),
   * optionally followed by a class (`TLSv1.3 modern`): recorded as the pageview's TLS summary. Only known
   * versions and classes are kept.
   */
  tls?: string | null;
}

/** Header values must be ByteStrings without line breaks; drop anything else rather than throw. */
function clean(value: string, max: number): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const v = value.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!v || v.length > max || /[^\u0020-\u00ff]/.test(v)) return undefined;
  return v;
}

/** The headers a proxying server adds when forwarding a page report to `{collectUrl}`. */
export function proxyHeaders(input: ProxyHeadersInput): Record<string, string> {
  const headers: Record<string, string> = { 'x-svc-proxy': input.secret };
  const ip = input.clientIp ? clean(String(input.clientIp), 64) : undefined;
  if (ip) headers['x-svc-client-ip'] = ip;
  const country = input.country ? clean(String(input.country), 2) : undefined;
  if (country && /^[A-Za-z0-9]{2}$/.test(country)) headers['x-svc-client-country'] = country.toUpperCase();
  if (input.asn !== undefined && input.asn !== null && input.asn !== '') {
    const asn = Number(input.asn);
    if (Number.isInteger(asn) && asn >= 0) headers['x-svc-client-asn'] = String(asn);
  }
  const asOrg = input.asOrg ? clean(String(input.asOrg), 256) : undefined;
  if (asOrg) headers['x-svc-client-as-org'] = asOrg;
  const tls = input.tls ? clean(String(input.tls), 64) : undefined;
  if (tls) headers['x-svc-client-tls'] = tls;
  return headers;
}

/** The service's own cookies on the customer's hostname (`us_pass`, the internal-traffic mark): all `/_us/*` reads. */
export const SERVICE_COOKIES: ReadonlySet<string> = new Set(['us_pass', 'us_internal']);

/**
 * The Cookie header to send with a request forwarded to the service's `/_us/*`: only the service's own cookies,
 * so the site's sessions and logins never reach the service ('' when there are none). `Authorization` is never
 * forwarded either (`SECRET_HEADERS`).
 */
export function serviceCookieHeader(cookie: string | null | undefined): string {
  const kept: string[] = [];
  for (const part of (cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && SERVICE_COOKIES.has(part.slice(0, i).trim())) kept.push(part.trim());
  }
  return kept.join('; ');
}

/** Request headers of the visitor's that never go to the service: the site's own credentials. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['cookie', 'authorization', 'proxy-authorization']);
