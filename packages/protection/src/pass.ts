import { mac, sameText, seal, unseal } from './signing.ts';

/**
 * `us_pass`: the first-party cookie a browser gets on the site's own hostname after passing the check
 * (spec §2, §8: one day). Its value is `<expiry>.<signature>`, the signature covering the site, the expiry,
 * the browser (its user-agent string, hashed inside the signature only) and the network (IPv4 /24, IPv6
 * /48). Nothing about the visitor is in the cookie; a cookie copied to another site, browser or network
 * does not verify. The edge checks it with the site's pass key, without a round trip.
 */
export const PASS_COOKIE = 'us_pass';
export const PASS_TTL_SECONDS = 86_400;

/** The network an address belongs to, as a pass is bound to it: IPv4 /24, IPv6 /48. */
export function networkOf(ip: string): string {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]?.split('::') ?? [];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
    return `${groups
      .slice(0, 3)
      .map((g) => g.replace(/^0+(?=.)/, ''))
      .join(':')}::/48`;
  }
  return ip;
}

/**
 * How much of the user agent a pass is bound to: the decide endpoint and proxy mode see at most this much of it
 * (DECIDE_LIMITS.ua), so a pass issued or checked over more never matched there.
 */
export const PASS_UA_CHARS = 1024;

const signed = (siteId: string, exp: number, ua: string, ip: string) =>
  `pass\n${siteId}\n${exp}\n${ua.slice(0, PASS_UA_CHARS)}\n${networkOf(ip)}`;

/** The cookie value for a browser (user agent `ua`, address `ip`) that passed the check for a site. */
export async function issuePass(passKey: string, siteId: string, ua: string, ip: string, now = Date.now()): Promise<string> {
  const exp = Math.floor(now / 1000) + PASS_TTL_SECONDS;
  return `${exp}.${await mac(passKey, signed(siteId, exp, ua, ip))}`;
}

/** True when `cookie` is a live pass of this site for this browser and network. Never throws. */
export async function verifyPass(
  passKey: string,
  siteId: string,
  ua: string,
  ip: string,
  cookie: string | null | undefined,
  now = Date.now(),
): Promise<boolean> {
  const m = /^(\d{9,11})\.([A-Za-z0-9_-]{22})$/.exec(cookie ?? '');
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= now || exp * 1000 > now + PASS_TTL_SECONDS * 1000 + 60_000) return false;
  return sameText(await mac(passKey, signed(siteId, exp, ua, ip)), m[2] as string);
}

/** The `us_pass` value in a Cookie header, if any. */
export function passFromCookies(header: string | null | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === PASS_COOKIE) return part.slice(i + 1).trim();
  }
  return undefined;
}

/**
 * The return ticket a challenged request carries to the check page: which site, the hostname and path to
 * come back to, how risky the request looked (it sizes the proof of work), until when it holds. Signed
 * with the site's pass key by whoever challenged (edge or service); the check page verifies it.
 */
export interface Ticket {
  /** Site id. */
  s: string;
  /** Hostname to return to (checked again against the site's verified hostnames). */
  h: string;
  /** Path and query to return to on that hostname. */
  p: string;
  /** Risk 0-100. */
  r: number;
  /** Expiry, epoch seconds. */
  e: number;
}

export const TICKET_TTL_SECONDS = 600;

/**
 * The risk a check's ticket carries for a decision's risk: a declared bot (risk -1) that `bots: challenge` sends to
 * the check gets a middling proof of work, wherever it was decided (at the edge, by the decide endpoint, in proxy mode).
 */
export const ticketRisk = (risk: number) => (risk < 0 ? 50 : Math.min(100, risk));

export function issueTicket(passKey: string, t: Omit<Ticket, 'e'>, now = Date.now()): Promise<string> {
  return seal(passKey, { ...t, e: Math.floor(now / 1000) + TICKET_TTL_SECONDS });
}

/** The ticket when its signature holds and it has not expired, else null. */
export async function readTicket(passKey: string, token: string, now = Date.now()): Promise<Ticket | null> {
  const t = await unseal<Ticket>(passKey, token);
  if (!t || typeof t.s !== 'string' || typeof t.h !== 'string' || typeof t.p !== 'string') return null;
  if (typeof t.e !== 'number' || t.e * 1000 <= now) return null;
  return { ...t, r: Math.min(100, Math.max(0, Number(t.r) || 0)) };
}
