import { createHash } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { BotInfo, Verification } from '@us/protection';
import type { Deps } from '../../core/deps.ts';
import { type ParsedIp, parseIp } from '../../core/enrich/ip.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { parseDnsServers } from '../hostnames/index.ts';

/**
 * Forward-confirmed reverse DNS for crawlers whose operators publish the host names their crawlers'
 * addresses resolve to (where the edge platform gives no verdict: proxy mode, other platforms). The address
 * must resolve (PTR) to a name under one of the operator's domains, and that name must resolve (A/AAAA) back
 * to the address. Sources: each operator's crawler documentation.
 */
const GOOGLE = ['googlebot.com', 'google.com', 'googleusercontent.com'];
export const RDNS_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  Googlebot: GOOGLE,
  'Google-InspectionTool': GOOGLE,
  GoogleOther: GOOGLE,
  Google: GOOGLE,
  'Google-Extended': GOOGLE,
  Bingbot: ['search.msn.com'],
  BingPreview: ['search.msn.com'],
  Applebot: ['applebot.apple.com'],
  'Applebot-Extended': ['applebot.apple.com'],
  YandexBot: ['yandex.ru', 'yandex.net', 'yandex.com'],
  Baiduspider: ['baidu.com', 'baidu.jp'],
  'Yahoo! Slurp': ['crawl.yahoo.net'],
  SeznamBot: ['seznam.cz'],
  PetalBot: ['petalsearch.com'],
  Amazonbot: ['crawl.amazonbot.amazon'],
};

export const VERIFICATION = {
  /** The whole check (reverse and forward lookup) answers within this, else `unknown`. */
  budgetMs: 300,
  /** Verdicts are kept this long in the hot store (shared by the nodes). */
  cacheSeconds: 86_400,
  /** And this long on each node. */
  localMs: 10 * 60_000,
  /** Lookups in flight at once per node; past it, `unknown`. */
  inFlight: 64,
  /** Fresh lookups per site and minute (counted before looking); past it, `unknown`. */
  perSitePerMinute: 600,
} as const;

/** Addresses are never kept: a verdict is filed under a hash of the address and the operator. */
const cacheKey = (ip: string, bot: string) =>
  `fcrdns:${createHash('sha256').update(`${ip}\n${bot}`).digest('base64url').slice(0, 22)}`;

const local = new Map<string, { verdict: Verification; until: number }>();
const pending = new Map<string, Promise<Verification>>();
let running = 0;

const sameIp = (a: ParsedIp, b: ParsedIp | null) =>
  !!b && (a.v === 4 ? b.v === 4 && a.n === b.n : b.v === 6 && a.hi === b.hi && a.lo === b.lo);

const under = (name: string, domains: readonly string[]) => {
  const n = name.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => n === d || n.endsWith(`.${d}`));
};

const NO_SUCH = new Set(['ENOTFOUND', 'ENODATA']);

/** One forward-confirmed reverse lookup: `verified`, `failed` (DNS said no) or `unknown` (DNS did not answer). */
async function lookup(servers: string[], ip: string, domains: readonly string[]): Promise<Verification> {
  const parsed = parseIp(ip);
  if (!parsed) return 'failed';
  const resolver = new Resolver({ timeout: VERIFICATION.budgetMs, tries: 1 });
  if (servers.length) resolver.setServers(servers);
  const timer = setTimeout(() => resolver.cancel(), VERIFICATION.budgetMs);
  timer.unref();
  try {
    let names: string[];
    try {
      // A PTR question of our own: `reverse` reports a timeout or SERVFAIL as "not found".
      names = await resolver.resolvePtr(reverseName(parsed));
    } catch (e) {
      return NO_SUCH.has((e as { code?: string }).code ?? '') ? 'failed' : 'unknown';
    }
    const candidates = names.filter((n) => under(n, domains)).slice(0, 4);
    if (!candidates.length) return 'failed';
    let unanswered = false;
    for (const name of candidates) {
      try {
        const addresses = parsed.v === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
        if (addresses.some((a) => sameIp(parsed, parseIp(a)))) return 'verified';
      } catch (e) {
        if (!NO_SUCH.has((e as { code?: string }).code ?? '')) unanswered = true;
      }
    }
    return unanswered ? 'unknown' : 'failed';
  } finally {
    clearTimeout(timer);
    resolver.cancel();
  }
}

/** The name a PTR question about an address asks for: `4.3.2.1.in-addr.arpa`, or IPv6 nibbles under `ip6.arpa`. */
export function reverseName(p: ParsedIp): string {
  if (p.v === 4) return `${[p.n & 255, (p.n >>> 8) & 255, (p.n >>> 16) & 255, p.n >>> 24].join('.')}.in-addr.arpa`;
  const hex = `${p.hi.toString(16).padStart(16, '0')}${p.lo.toString(16).padStart(16, '0')}`;
  return `${[...hex].reverse().join('.')}.ip6.arpa`;
}

/**
 * Whether a declared bot at `ip` is who it says, by forward-confirmed reverse DNS through `DNS_SERVERS`:
 * `unknown` for a bot whose operator publishes no host names (IP lists only, or nothing), when DNS does not
 * answer within 300 ms, or past the lookup budgets. Verdicts are cached a day, by a hash of the address.
 */
export async function verifyCrawler(
  deps: Pick<Deps, 'env' | 'hot'>,
  siteId: string,
  bot: BotInfo,
  ip: string,
): Promise<Verification> {
  const domains = RDNS_DOMAINS[bot.name];
  if (!domains) return 'unknown';
  const key = cacheKey(ip, domains.join(','));
  const hit = local.get(key);
  if (hit && hit.until > Date.now()) return hit.verdict;
  const shared = await hotAnswer(deps.hot, deps.hot.get(key), 50, null);
  if (shared === 'verified' || shared === 'failed') {
    remember(key, shared, Date.now());
    return shared;
  }
  const inFlight = pending.get(key);
  if (inFlight) return inFlight;
  // Taken and counted in one synchronous step: concurrent callers cannot all pass the check first.
  if (running >= VERIFICATION.inFlight) return 'unknown';
  running += 1;
  const check = (async (): Promise<Verification> => {
    try {
      const count = await hotAnswer(deps.hot, deps.hot.incr(`fcrdns-budget:${siteId}`, 60), 50, 0);
      if (count > VERIFICATION.perSitePerMinute) return 'unknown';
      const verdict = await lookup(parseDnsServers(deps.env.DNS_SERVERS), ip, domains);
      if (verdict !== 'unknown') {
        remember(key, verdict, Date.now());
        deps.hot.set(key, verdict, VERIFICATION.cacheSeconds).catch(() => {});
      }
      return verdict;
    } catch {
      return 'unknown';
    } finally {
      running -= 1;
      pending.delete(key);
    }
  })();
  pending.set(key, check);
  return check;
}

function remember(key: string, verdict: Verification, now: number) {
  if (local.size >= 10_000) local.clear();
  local.set(key, { verdict, until: now + VERIFICATION.localMs });
}
