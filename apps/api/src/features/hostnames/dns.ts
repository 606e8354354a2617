import { Resolver } from 'node:dns/promises';

export type TxtLookup = { kind: 'found'; values: string[] } | { kind: 'absent' } | { kind: 'failed'; code: string };

/** DNS_SERVERS (`ip` or `ip:port`, `[v6]:port`, comma-separated) as a resolver list; empty → the system's. */
export function parseDnsServers(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The TXT records at `name`, looked up for real (no cache of ours) through the configured resolvers.
 * Each record's strings are joined, as a TXT record longer than 255 characters is split into several.
 * "No such name" and "no TXT record" are both `absent`; anything else (timeout, refused) is `failed`.
 */
export async function lookupTxt(servers: string[], name: string): Promise<TxtLookup> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  try {
    if (servers.length > 0) resolver.setServers(servers);
  } catch {
    return { kind: 'failed', code: 'EBADSERVERS' };
  }
  try {
    const records = await resolver.resolveTxt(name);
    return { kind: 'found', values: records.map((chunks) => chunks.join('')) };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'EUNKNOWN';
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { kind: 'absent' };
    return { kind: 'failed', code };
  } finally {
    resolver.cancel();
  }
}
