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
  return headers;
}
