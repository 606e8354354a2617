import type { Deps } from '../../core/deps.ts';
import { type DnsLookup, lookupAddresses, lookupCname, lookupTxt, parseDnsServers } from './dns.ts';
import { proxyCnameTarget, verificationName, verificationValue } from './view.ts';

/**
 * The built-in ingress (infra/caddy): a proxy-mode hostname without an edge platform goes live once DNS
 * shows that it is the customer's (the TXT record `_svc.<hostname>` = `svc-verify=<token>`) and that its
 * traffic comes here (a CNAME to PROXY_CNAME_TARGET, or at a domain's apex, where CNAME flattening or an
 * ALIAS record answers addresses, only addresses of that target).
 */

/** One record's state: as asked for, missing, something else there, or the lookup failed (`code`). */
export type Finding = { state: 'ok' | 'absent' | 'other' } | { state: 'failed'; code: string };

export interface IngressCheck {
  live: boolean;
  ownership: Finding;
  traffic: Finding;
}

/** What a check needs: the resolvers and the ingress the hostname must point at. */
export interface IngressDns {
  servers: string[];
  target: string;
  /** The target's addresses, looked up at most once by whoever holds this (a run of the job, a request). */
  targetAddresses: () => Promise<DnsLookup>;
}

export function ingressDns(deps: Pick<Deps, 'env' | 'urls'>): IngressDns {
  const servers = parseDnsServers(deps.env.DNS_SERVERS);
  const target = proxyCnameTarget(deps).toLowerCase();
  let addresses: Promise<DnsLookup> | undefined;
  return { servers, target, targetAddresses: () => (addresses ??= lookupAddresses(servers, target)) };
}

const failed = (code: string): Finding => ({ state: 'failed', code });

async function ownershipOf(dns: IngressDns, hostname: string, token: string): Promise<Finding> {
  const found = await lookupTxt(dns.servers, verificationName(hostname));
  if (found.kind === 'failed') return failed(found.code);
  if (found.kind === 'absent') return { state: 'absent' };
  const value = verificationValue(token);
  return { state: found.values.some((v) => v.trim() === value) ? 'ok' : 'other' };
}

async function trafficOf(dns: IngressDns, hostname: string): Promise<Finding> {
  const cname = await lookupCname(dns.servers, hostname);
  if (cname.kind === 'found' && cname.values.includes(dns.target)) return { state: 'ok' };
  // No CNAME to the target itself: an apex name (flattened), or a chain through names of the customer's.
  const own = await lookupAddresses(dns.servers, hostname);
  if (own.kind === 'failed') return failed(own.code);
  if (own.kind === 'absent') return cname.kind === 'failed' ? failed(cname.code) : { state: 'absent' };
  const ingress = await dns.targetAddresses();
  if (ingress.kind === 'failed') return failed(ingress.code);
  if (ingress.kind === 'absent') return failed('ENOINGRESS');
  // Every address it answers must be the ingress's: one address elsewhere is traffic we would not carry.
  return { state: own.values.every((a) => ingress.values.includes(a)) ? 'ok' : 'other' };
}

/** Looks both records up now (no cache of ours); live when both are as asked. */
export async function checkIngress(dns: IngressDns, hostname: string, token: string): Promise<IngressCheck> {
  const [ownership, traffic] = await Promise.all([ownershipOf(dns, hostname, token), trafficOf(dns, hostname)]);
  return { live: ownership.state === 'ok' && traffic.state === 'ok', ownership, traffic };
}

/** What the customer still has to do, in words (the verify route's message). */
export function ingressMessage(dns: IngressDns, hostname: string, token: string, check: IngressCheck): string {
  const name = verificationName(hostname);
  const value = verificationValue(token);
  const todo: string[] = [];
  const { ownership, traffic } = check;
  if (ownership.state === 'absent') todo.push(`add a TXT record named ${name} with the value ${value}`);
  if (ownership.state === 'other') todo.push(`the TXT records at ${name} do not include ${value}: add it (exactly this value)`);
  if (ownership.state === 'failed') todo.push(`the DNS lookup of ${name} failed (${ownership.code}): make sure it answers`);
  const point = `a CNAME record ${hostname} → ${dns.target} (at a domain's apex, your DNS provider's CNAME flattening or ALIAS record to ${dns.target})`;
  if (traffic.state === 'absent') todo.push(`point ${hostname} at the proxy with ${point}`);
  if (traffic.state === 'other') todo.push(`${hostname} points elsewhere: replace its records with ${point}`);
  if (traffic.state === 'failed') {
    todo.push(
      traffic.code === 'ENOINGRESS'
        ? `the proxy's address (${dns.target}) could not be found: this server's operator must fix it, nothing to change on your side`
        : `the DNS lookup of ${hostname} failed (${traffic.code}): make sure it answers`,
    );
  }
  return `${hostname} is not live yet: ${todo.join('; ')}. Then check again: DNS changes can take a few minutes to appear`;
}
