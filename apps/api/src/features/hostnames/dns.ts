import { Resolver } from 'node:dns/promises';

/** What a lookup found: the records' values, no such record (or name), or no answer at all. */
export type DnsLookup = { kind: 'found'; values: string[] } | { kind: 'absent' } | { kind: 'failed'; code: string };
export type TxtLookup = DnsLookup;

/** DNS_SERVERS (`ip` or `ip:port`, `[v6]:port`, comma-separated) as a resolver list; empty → the system's. */
export function parseDnsServers(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Each question waits 3 s for an answer, asked twice: a lookup gives up after about 6 s. */
const RESOLVER_OPTIONS = { timeout: 3000, tries: 2 } as const;

/**
 * One real lookup (no cache of ours) through the configured resolvers. "No such name" and "no record of
 * that type" are both `absent`; anything else (timeout, refused, SERVFAIL) is `failed`.
 */
async function lookup(servers: string[], ask: (resolver: Resolver) => Promise<string[]>): Promise<DnsLookup> {
  const resolver = new Resolver(RESOLVER_OPTIONS);
  try {
    if (servers.length > 0) resolver.setServers(servers);
  } catch {
    return { kind: 'failed', code: 'EBADSERVERS' };
  }
  try {
    return { kind: 'found', values: await ask(resolver) };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'EUNKNOWN';
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { kind: 'absent' };
    return { kind: 'failed', code };
  } finally {
    resolver.cancel();
  }
}

/**
 * The TXT records at `name`. Each record's strings are joined, as a TXT record longer than 255
 * characters is split into several.
 */
export function lookupTxt(servers: string[], name: string): Promise<TxtLookup> {
  return lookup(servers, async (r) => (await r.resolveTxt(name)).map((chunks) => chunks.join('')));
}

/** The CNAME of `name` (its first hop only), lower-cased and without a trailing dot. */
export function lookupCname(servers: string[], name: string): Promise<DnsLookup> {
  return lookup(servers, async (r) => (await r.resolveCname(name)).map(bareName));
}

/**
 * The IPv4 and IPv6 addresses `name` resolves to (through any CNAME chain). Found when either family
 * answers; failed only when neither answers and one failed.
 */
export async function lookupAddresses(servers: string[], name: string): Promise<DnsLookup> {
  const [v4, v6] = await Promise.all([lookup(servers, (r) => r.resolve4(name)), lookup(servers, (r) => r.resolve6(name))]);
  const values = [...(v4.kind === 'found' ? v4.values : []), ...(v6.kind === 'found' ? v6.values : [])];
  if (values.length > 0) return { kind: 'found', values };
  if (v4.kind === 'failed') return v4;
  if (v6.kind === 'failed') return v6;
  return { kind: 'absent' };
}

/** A DNS name as compared: lower-case, no trailing dot. */
export const bareName = (name: string) => name.toLowerCase().replace(/\.$/, '');
