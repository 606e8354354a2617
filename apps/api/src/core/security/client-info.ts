import { isIPv4, isIPv6 } from 'node:net';
import { parseIp } from '../enrich/ip.ts';

/**
 * The client a budget per address counts (sign-in, sign-up, shared links, reports, unknown keys, secrets and
 * hosts, the check page): an IPv4 address, or an IPv6 address's /64. Every IPv6 subscriber holds a /64 at least
 * and may pick a new address in it for each request: counted by the whole address, one client was never limited.
 */
export function budgetClient(ip: string): string {
  if (isIPv4(ip)) return ip;
  const parsed = parseIp(ip);
  if (!parsed) return ip;
  if (parsed.v === 4) return [parsed.n >>> 24, (parsed.n >>> 16) & 255, (parsed.n >>> 8) & 255, parsed.n & 255].join('.');
  return `${parsed.hi.toString(16)}::/64`;
}

/** Coarse network of an address: IPv4 /24 or IPv6 /48. The full address is never stored. */
export function coarseNetwork(ip: string | undefined): string | null {
  if (!ip) return null;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(ip)) {
    const full = expandIPv6(ip);
    return `${full.slice(0, 3).join(':')}::/48`;
  }
  return null;
}

function expandIPv6(ip: string): string[] {
  const [head = '', tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = ip.includes('::') ? Array(8 - h.length - t.length).fill('0') : [];
  return [...h, ...fill, ...t].map((x) => x.replace(/^0+(?=.)/, ''));
}

const BROWSERS: [RegExp, string][] = [
  [/Edg\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+).*Safari/, 'Safari'],
  [/curl\/(\d+)/, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** "Chrome 140 on Linux": a summary of a user-agent string; the string itself is never stored. */
export function deviceSummary(whole: string | undefined): string | null {
  if (!whole) return null;
  // Its first 1,024 characters, as the classifier reads: `Version/(\d+).*Safari` is quadratic over a 16 KB header.
  const ua = whole.slice(0, 1_024);
  let browser = 'Unknown browser';
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) {
      browser = `${name} ${m[1]}`;
      break;
    }
  }
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
