import type { SiteHostname } from '@us/db';
import type { HostnameRecord } from '@us/shared';

type HostnameRow = Pick<SiteHostname, 'hostname' | 'proxy' | 'verifiedAt' | 'verifyToken' | 'createdAt'>;

/**
 * A hostname as the site record shows it (spec §2 Hostname). `verification` is the TXT record
 * `_svc.<hostname>` = `svc-verify=<token>` while an ordinary hostname is unverified; null once verified,
 * and for proxy-mode hostnames (the single-hostname route's `proxy.records` lists what those need).
 */
export function hostnameRecord(row: HostnameRow): HostnameRecord {
  const verification =
    row.verifiedAt || row.proxy
      ? null
      : { type: 'TXT' as const, name: `_svc.${row.hostname}`, value: `svc-verify=${row.verifyToken}` };
  return {
    hostname: row.hostname,
    proxy: row.proxy,
    verifiedAt: row.verifiedAt ? row.verifiedAt.toISOString() : null,
    verification,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Hostnames in the order the record lists them: oldest first, then by name. */
export function byCreation(a: HostnameRow, b: HostnameRow): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0);
}
