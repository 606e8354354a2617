import { randomBytes } from 'node:crypto';
import type { SiteHostname } from '@us/db';
import type { HostnameDetail, HostnameProxyStatus, ProxyDnsRecord } from '@us/shared';
import type { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import type { EdgeHostname } from './edge-platform.ts';
import { hostnameRecord } from './record.ts';

type ProxyStatus = z.infer<typeof HostnameProxyStatus>;
type DnsRecord = z.infer<typeof ProxyDnsRecord>;

/** The secret a hostname's TXT record must carry; 32 hex characters. */
export const newVerifyToken = () => randomBytes(16).toString('hex');

/** `_svc.<hostname>`: where the verification TXT record lives. */
export const verificationName = (hostname: string) => `_svc.${hostname}`;
export const verificationValue = (token: string) => `svc-verify=${token}`;

/** Where proxy-mode hostnames point their CNAME: PROXY_CNAME_TARGET, else `proxy.<BASE_URL host>`. */
export function proxyCnameTarget(deps: Pick<Deps, 'env' | 'urls'>): string {
  return deps.env.PROXY_CNAME_TARGET ?? `proxy.${new URL(deps.urls.base).hostname}`;
}

/**
 * The records a proxy-mode hostname needs: the CNAME to the proxy always (it carries the traffic), the
 * edge platform's ownership TXT record until the hostname is active, and its certificate TXT records
 * until the certificate is active.
 */
export function proxyRecords(deps: Pick<Deps, 'env' | 'urls'>, hostname: string, edge: EdgeHostname | null): DnsRecord[] {
  const records: DnsRecord[] = [{ type: 'CNAME', name: hostname, value: proxyCnameTarget(deps), purpose: 'traffic' }];
  if (!edge) return records;
  if (edge.ownership && edge.status !== 'active') {
    records.push({ type: 'TXT', name: edge.ownership.name, value: edge.ownership.value, purpose: 'ownership' });
  }
  if (edge.sslStatus !== 'active') {
    for (const r of edge.sslRecords) records.push({ type: 'TXT', name: r.name, value: r.value, purpose: 'certificate' });
  }
  return records;
}

/**
 * The proxy part of the single-hostname answer. `edge` is the live state (null with `live` true: the
 * edge platform no longer knows the hostname; `live` false: it could not be reached, last known status).
 */
export function proxyStatusOf(
  deps: Pick<Deps, 'env' | 'urls'>,
  row: Pick<SiteHostname, 'hostname' | 'origin' | 'edgeStatus'>,
  edge: EdgeHostname | null,
  live: boolean,
): ProxyStatus {
  return {
    status: edge ? edge.status : live ? 'missing' : (row.edgeStatus ?? 'unknown'),
    sslStatus: edge ? edge.sslStatus : null,
    live,
    origin: row.origin ?? null,
    records: proxyRecords(deps, row.hostname, edge),
  };
}

/**
 * The proxy part for a hostname the built-in ingress carries (no edge registration): its own status,
 * pending until the job or a verify check sees its records, then active. The CNAME is listed always (it
 * carries the traffic), the TXT record `_svc.<hostname>` proving ownership until the hostname is live.
 * The certificate is Caddy's, got at the first visit once live: no status of it here (`sslStatus` null).
 */
export function ingressStatusOf(
  deps: Pick<Deps, 'env' | 'urls'>,
  row: Pick<SiteHostname, 'hostname' | 'origin' | 'edgeStatus' | 'verifyToken'>,
): ProxyStatus {
  const status = row.edgeStatus ?? 'pending';
  const records = proxyRecords(deps, row.hostname, null);
  if (status !== 'active') {
    const ownership = { name: verificationName(row.hostname), value: verificationValue(row.verifyToken) };
    records.push({ type: 'TXT', ...ownership, purpose: 'ownership' });
  }
  return { status, sslStatus: null, live: true, origin: row.origin ?? null, records };
}

/**
 * The single-hostname answer: the site record's hostname (same `verification` rule: the TXT record while
 * an ordinary hostname is unverified, null once verified and for proxy-mode hostnames) with `proxy`
 * holding the live proxy status instead of a bool (null for an ordinary hostname).
 */
export function hostnameDetail(row: SiteHostname, proxy: ProxyStatus | null): HostnameDetail {
  return { ...hostnameRecord(row), proxy: row.proxy ? proxy : null };
}
