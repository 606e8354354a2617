import { Resolver } from 'node:dns/promises';
import type { Verification } from '@us/protection';
import { type ParsedIp, parseIp } from '../../core/enrich/ip.ts';
import { underDomains } from './crawler-checks.ts';

const NO_SUCH = new Set(['ENOTFOUND', 'ENODATA']);

const sameIp = (a: ParsedIp, b: ParsedIp | null) =>
  !!b && (a.v === 4 ? b.v === 4 && a.n === b.n : b.v === 6 && a.hi === b.hi && a.lo === b.lo);

/** The name a PTR question about an address asks for: `4.3.2.1.in-addr.arpa`, or IPv6 nibbles under `ip6.arpa`. */
export function reverseName(p: ParsedIp): string {
  if (p.v === 4) return `${[p.n & 255, (p.n >>> 8) & 255, (p.n >>> 16) & 255, p.n >>> 24].join('.')}.in-addr.arpa`;
  const hex = `${p.hi.toString(16).padStart(16, '0')}${p.lo.toString(16).padStart(16, '0')}`;
  return `${[...hex].reverse().join('.')}.ip6.arpa`;
}

/**
 * One forward-confirmed reverse lookup through `servers` (the system's resolver when empty), the whole of it
 * within `timeoutMs`: the address must resolve (PTR) to a name under one of `domains`, and that name back
 * (A/AAAA) to the address. `verified`; `failed` when DNS said no (no PTR, a name elsewhere, a name that
 * does not resolve back); `unknown` when DNS did not answer (timeout, SERVFAIL).
 */
export async function forwardConfirmed(
  servers: string[],
  ip: string,
  domains: readonly string[],
  timeoutMs: number,
): Promise<Verification> {
  const parsed = parseIp(ip);
  if (!parsed) return 'failed';
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length) resolver.setServers(servers);
  const timer = setTimeout(() => resolver.cancel(), timeoutMs);
  timer.unref();
  try {
    let names: string[];
    try {
      // A PTR question of our own: `reverse` reports a timeout or SERVFAIL as "not found".
      names = await resolver.resolvePtr(reverseName(parsed));
    } catch (e) {
      return NO_SUCH.has((e as { code?: string }).code ?? '') ? 'failed' : 'unknown';
    }
    const candidates = names.filter((n) => underDomains(n, domains)).slice(0, 4);
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
