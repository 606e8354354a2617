import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Site, SiteHostname } from '@us/db';
import { HOSTNAME_LIMITS, type HostnameDetail, normaliseHostname, PLAN_LIMITS, type Plan, planOf } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest, tooMany } from '../../core/errors.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { originHostProblem } from '../../core/security/outbound-url.ts';
import { sampleProxyPeaks } from '../billing/index.ts';
import { lookupTxt, parseDnsServers } from './dns.ts';
import {
  createCustomHostname,
  deleteCustomHostname,
  type EdgeHostname,
  EdgeRefused,
  EdgeUnavailable,
  edgeConfig,
  getCustomHostname,
} from './edge-platform.ts';
import { goLive, INGRESS_PENDING } from './go-live.ts';
import { checkIngress, ingressDns, ingressMessage } from './ingress-check.ts';
import { hostnameDetail, ingressStatusOf, newVerifyToken, proxyStatusOf, verificationName, verificationValue } from './view.ts';

/** A hostname as typed, normalised; refused with normaliseHostname's words, `field` hostname. */
export function hostnameInput(raw: string): string {
  const check = normaliseHostname(raw);
  if (!check.ok) throw badRequest('hostname', check.problem);
  return check.hostname;
}

/** The origin of a proxy-mode hostname: an http(s) URL of scheme and host only. */
function originInput(raw: string | undefined, hostname: string, allowPrivate: boolean): { url: string; host: string } {
  if (raw === undefined || raw.trim() === '') {
    throw badRequest(
      'origin',
      'origin is required for proxy mode: give the URL requests are forwarded to, such as https://origin.example.com',
    );
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badRequest('origin', 'Give origin as a full URL such as https://origin.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest('origin', 'Use an http:// or https:// origin, such as https://origin.example.com');
  }
  if (url.username || url.password) throw badRequest('origin', 'Leave the user name and password out of origin');
  if (url.pathname !== '/' || url.search || url.hash) {
    throw badRequest(
      'origin',
      'Give origin as scheme and host only, such as https://origin.example.com: requests keep their own path',
    );
  }
  if (url.hostname === hostname) {
    throw badRequest('origin', `Point origin at another host than ${hostname}: requests would come straight back to the proxy`);
  }
  // The proxy connects only to public addresses (faces/proxy/forward.ts checks each connection too).
  const problem = allowPrivate ? null : originHostProblem(url.hostname);
  if (problem) throw badRequest('origin', problem);
  return { url: url.origin, host: url.hostname };
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Locks the workspace row until the transaction ends (allowance counts stay true); returns its plan. */
async function lockWorkspacePlan(tx: EntityManager, workspaceId: string): Promise<Plan> {
  const rows = await tx.execute<{ plan: string }[]>('select plan from workspaces where id = ? for update', [workspaceId]);
  const row = rows[0];
  if (!row) throw new AppError(404, 'This workspace no longer exists: choose another workspace');
  return planOf(row.plan);
}

async function workspacePlan(em: EntityManager, workspaceId: string): Promise<Plan> {
  const rows = await em.execute<{ plan: string }[]>('select plan from workspaces where id = ?', [workspaceId]);
  return planOf(rows[0]?.plan ?? 'Free');
}

const alreadyHere = (hostname: string) =>
  new AppError(
    409,
    `${hostname} is already a hostname of this site: to switch it to or from proxy mode, delete it and add it again`,
  );
const proxiedElsewhere = (hostname: string) =>
  new AppError(
    409,
    `${hostname} is already served in proxy mode by another site: remove it there first, or add it here without proxy`,
  );
const edgeUnreachable = () =>
  new AppError(
    503,
    'Proxy mode is not available right now: the edge platform could not be reached. Nothing was saved; try again in a few minutes',
  );

/** Room on the site for `hostname`: not there yet, and fewer than 50 hostnames. */
async function checkRoom(em: EntityManager, siteId: string, hostname: string) {
  if (await em.count(SiteHostname, { site: siteId, hostname })) throw alreadyHere(hostname);
  if ((await em.count(SiteHostname, { site: siteId })) >= HOSTNAME_LIMITS.perSite) {
    throw new AppError(
      409,
      `This site already has ${HOSTNAME_LIMITS.perSite} hostnames, the most a site can have: delete one before adding another`,
    );
  }
}

/** Proxy mode for `hostname`: no other site proxies it, and a Free workspace has not used its allowance. */
async function checkProxyAllowed(em: EntityManager, workspaceId: string, hostname: string, plan: Plan) {
  if (await em.count(SiteHostname, { hostname, proxy: true })) throw proxiedElsewhere(hostname);
  const limit = PLAN_LIMITS[plan].proxyHostnames;
  // Paid plans may go past their allowance (each extra proxy hostname is billed); Free never bills.
  if (plan !== 'Free' || limit === null) return;
  const used = await em.count(SiteHostname, { proxy: true, site: { workspace: workspaceId } });
  if (used >= limit) {
    throw new AppError(
      402,
      `The Free plan includes ${limit} proxy-mode hostname${limit === 1 ? '' : 's'} and this workspace already uses ${limit === 1 ? 'it' : 'them all'}: upgrade to a paid plan, or remove the other proxy-mode hostname first`,
    );
  }
}

function edgeFailure(err: unknown, hostname: string): AppError {
  if (err instanceof EdgeRefused) {
    if (err.duplicate) {
      return new AppError(
        409,
        `${hostname} is already registered with the edge platform by another site: remove it there first, or add it here without proxy`,
      );
    }
    const why = err.messages.join('; ') || 'no reason given';
    return badRequest('hostname', `The edge platform refused ${hostname} (${why}): check the hostname, or add it without proxy`);
  }
  return edgeUnreachable();
}

/**
 * Adds a hostname to a site. Ordinary hostnames get a TXT record to verify. Proxy-mode hostnames are
 * registered at the edge platform first when one is configured (whose answer lists the records to set);
 * if saving fails after that, the registration is taken back so no orphan stays at the edge. Without an
 * edge platform the built-in ingress carries them: pending until their records are seen (ingress-job.ts).
 */
export async function addHostname(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; hostname: string; proxy?: boolean | undefined; origin?: string | undefined },
): Promise<HostnameDetail> {
  const hostname = hostnameInput(input.hostname);
  const proxy = input.proxy === true;
  let origin: { url: string; host: string } | null = null;
  if (proxy) origin = originInput(input.origin, hostname, deps.env.PROXY_PRIVATE_ORIGINS);
  else if (input.origin !== undefined) {
    throw badRequest('origin', 'origin is only used in proxy mode: remove it, or set proxy to true');
  }
  const site = await loadSite(em, actor, input.id);
  const workspaceId = site.workspace.id;
  await checkRoom(em, site.id, hostname);

  const cfg = proxy ? edgeConfig(deps.env) : null;
  let edge: EdgeHostname | null = null;
  if (proxy) await checkProxyAllowed(em, workspaceId, hostname, await workspacePlan(em, workspaceId));
  if (cfg) {
    try {
      edge = await createCustomHostname(cfg, { hostname, originHost: origin?.host });
    } catch (err) {
      if (err instanceof EdgeUnavailable)
        deps.logger.warn(`registering ${hostname} at the edge platform failed: ${errText(err)}`);
      throw edgeFailure(err, hostname);
    }
  }

  let row: SiteHostname;
  try {
    row = await em.transactional(async (tx) => {
      const plan = await lockWorkspacePlan(tx, workspaceId);
      await checkRoom(tx, site.id, hostname);
      if (proxy) await checkProxyAllowed(tx, workspaceId, hostname, plan);
      const created = tx.create(SiteHostname, {
        site: site.id,
        hostname,
        proxy,
        origin: origin?.url ?? null,
        verifyToken: newVerifyToken(),
        verifiedAt: edge?.status === 'active' ? new Date() : null,
        edgeId: edge?.id ?? null,
        edgeStatus: edge ? edge.status.slice(0, 32) : proxy ? INGRESS_PENDING : null,
      });
      await tx.flush();
      return created;
    });
  } catch (err) {
    if (edge && cfg) {
      await deleteCustomHostname(cfg, edge.id).catch((e: unknown) =>
        deps.logger.error(`could not take back the edge registration ${edge?.id} of ${hostname}: remove it by hand`, e),
      );
    }
    if (err instanceof UniqueConstraintViolationException) {
      const here = await em.fork().count(SiteHostname, { site: site.id, hostname });
      throw here ? alreadyHere(hostname) : proxiedElsewhere(hostname);
    }
    throw err;
  }
  // A proxy hostname added and removed within the hour still counts in the month's peak (billing).
  if (proxy) await sampleProxyPeaks(em.getConnection(), new Date(), workspaceId);
  if (!proxy) return hostnameDetail(row, null);
  return hostnameDetail(row, edge ? proxyStatusOf(deps, row, edge, true) : ingressStatusOf(deps, row));
}

async function findHostname(em: EntityManager, site: Site, rawHostname: string): Promise<SiteHostname> {
  const hostname = hostnameInput(rawHostname);
  const row = await em.findOne(SiteHostname, { site: site.id, hostname });
  if (!row) {
    throw new AppError(404, `${hostname} is not a hostname of this site: check the spelling, or add it first`);
  }
  return row;
}

/** Reads of the edge platform a workspace's hostname lookups make a minute at most (then the status last read). */
export const EDGE_READS_PER_MINUTE = 60;

/**
 * Reads a proxy-mode hostname's live state at the edge platform and keeps what it says: its status and,
 * once the edge platform has validated it (active), `verifiedAt`. When the edge platform cannot be
 * reached the answer carries the last known status with `live` false. A hostname without an edge
 * registration is the built-in ingress's, whose state is its own.
 */
async function refreshProxy(deps: Deps, em: EntityManager, row: SiteHostname, budgetOf?: string) {
  if (!row.edgeId) return ingressStatusOf(deps, row);
  const cfg = edgeConfig(deps.env);
  if (!cfg) return proxyStatusOf(deps, row, null, false);
  // Each read is a call on the operator's one edge-platform token, whose quota every tenant shares: a workspace
  // polling a hostname past its reads a minute gets the status last read (live: false), not another call. (The
  // verify route has a budget of its own.)
  if (budgetOf !== undefined) {
    const reads = await hotAnswer(deps.hot, deps.hot.incr(`edge-reads:${budgetOf}`, 60), 100, 0);
    if (reads > EDGE_READS_PER_MINUTE) return proxyStatusOf(deps, row, null, false);
  }
  let edge: EdgeHostname | null;
  try {
    edge = await getCustomHostname(cfg, row.edgeId);
  } catch (err) {
    deps.logger.warn(`reading ${row.hostname} at the edge platform failed: ${errText(err)}`);
    return proxyStatusOf(deps, row, null, false);
  }
  const status = (edge?.status ?? 'missing').slice(0, 32);
  if (row.edgeStatus !== status) row.edgeStatus = status;
  if (edge?.status === 'active' && !row.verifiedAt) row.verifiedAt = new Date();
  await em.flush();
  return proxyStatusOf(deps, row, edge, true);
}

/** One hostname; for a proxy-mode hostname with its live status at the edge platform. */
export async function getHostname(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; hostname: string },
): Promise<HostnameDetail> {
  const site = await loadSite(em, actor, input.id);
  const row = await findHostname(em, site, input.hostname);
  return hostnameDetail(row, row.proxy ? await refreshProxy(deps, em, row, site.workspace.id) : null);
}

/**
 * Checks a hostname now: the TXT record `_svc.<hostname>` = `svc-verify=<token>` through a real DNS
 * lookup (DNS_SERVERS when set); for a proxy-mode hostname of the built-in ingress that record and its
 * CNAME to the proxy (it goes live when both are there), for one registered at an edge platform the
 * platform's validation. At most 30 checks per hour per site; a hostname already verified answers at
 * once without counting.
 */
export async function verifyHostname(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; hostname: string },
): Promise<{ verified: boolean; message?: string }> {
  const site = await loadSite(em, actor, input.id);
  const row = await findHostname(em, site, input.hostname);
  if (row.verifiedAt) return { verified: true };

  const key = `hostname-verify:${site.id}`;
  const count = await deps.hot.incr(key, 3600);
  if (count > HOSTNAME_LIMITS.verifyChecksPerHour) {
    const wait = Math.max(1, await deps.hot.ttl(key));
    throw tooMany(
      wait,
      `This site has had ${HOSTNAME_LIMITS.verifyChecksPerHour} verification checks this hour, the most allowed: wait ${wait} seconds, then check again`,
    );
  }

  if (row.proxy && !row.edgeId) return verifyIngress(deps, em, site.id, row);
  if (row.proxy) {
    const proxy = await refreshProxy(deps, em, row);
    if (row.verifiedAt) return { verified: true };
    const message = proxy.live
      ? `The edge platform has not validated ${row.hostname} yet (status ${proxy.status}): set the records listed in proxy.records of GET /v1/sites/${site.id}/hostnames/${row.hostname}, then check again in a few minutes`
      : 'The edge platform could not be asked about this proxy-mode hostname (unreachable, or not configured on this server): try again in a few minutes';
    return { verified: false, message };
  }

  const name = verificationName(row.hostname);
  const value = verificationValue(row.verifyToken);
  const found = await lookupTxt(parseDnsServers(deps.env.DNS_SERVERS), name);
  if (found.kind === 'found' && found.values.some((v) => v.trim() === value)) {
    // Only the first successful check sets the time; a concurrent one leaves it as it is.
    await em.nativeUpdate(SiteHostname, { site: site.id, hostname: row.hostname, verifiedAt: null }, { verifiedAt: new Date() });
    return { verified: true };
  }
  const add = `add a TXT record named ${name} with the value ${value}`;
  if (found.kind === 'found') {
    return {
      verified: false,
      message: `The TXT records at ${name} do not include ${value}: ${add} (exactly this value), then check again. DNS changes can take a few minutes to appear`,
    };
  }
  if (found.kind === 'absent') {
    return {
      verified: false,
      message: `No TXT record found at ${name}: ${add}, then check again. DNS changes can take a few minutes to appear`,
    };
  }
  deps.logger.warn(`TXT lookup of ${name} failed: ${found.code}`);
  return {
    verified: false,
    message: `The DNS lookup of ${name} failed (${found.code}): make sure the domain's DNS servers answer and ${add}, then check again`,
  };
}

/** The verify check of a built-in-ingress proxy hostname: both records now; live when both are there. */
async function verifyIngress(deps: Deps, em: EntityManager, siteId: string, row: SiteHostname) {
  const dns = ingressDns(deps);
  const check = await checkIngress(dns, row.hostname, row.verifyToken);
  for (const finding of [check.ownership, check.traffic]) {
    if (finding.state === 'failed') deps.logger.warn(`DNS lookup for proxy hostname ${row.hostname} failed: ${finding.code}`);
  }
  if (check.live) {
    await goLive(em, siteId, row.hostname);
    // This check or a concurrent one (the job's) made it live; one that is not pending any more stays as it is.
    const now = await em.fork().findOne(SiteHostname, { site: siteId, hostname: row.hostname });
    if (now?.verifiedAt) return { verified: true };
  }
  return { verified: false, message: ingressMessage(dns, row.hostname, row.verifyToken, check) };
}

/** Removes a hostname; a proxy-mode hostname is removed at the edge platform first (already gone there is fine). */
export async function removeHostname(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; hostname: string },
): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  const row = await findHostname(em, site, input.hostname);
  if (row.proxy && row.edgeId) {
    const cfg = edgeConfig(deps.env);
    if (!cfg) {
      // The operator turned proxy mode off: nothing can be removed at the edge from here any more.
      deps.logger.warn(`removing proxy hostname ${row.hostname} without an edge platform configured (edge id ${row.edgeId})`);
    } else {
      try {
        await deleteCustomHostname(cfg, row.edgeId);
      } catch (err) {
        deps.logger.warn(`removing ${row.hostname} at the edge platform failed: ${errText(err)}`);
        throw new AppError(
          503,
          `${row.hostname} could not be removed at the edge platform, so it was kept here: try again in a few minutes`,
        );
      }
    }
  }
  await em.nativeDelete(SiteHostname, { site: site.id, hostname: row.hostname });
}

/**
 * For deleting a whole site: removes its proxy-mode hostnames at the edge platform first (the rows go with
 * the site by cascade), so none stays registered there. Throws 503 when the edge platform cannot be
 * reached (then delete nothing); without an edge platform configured it only logs.
 */
export async function releaseEdgeHostnames(deps: Deps, em: EntityManager, siteId: string): Promise<void> {
  const rows = await em.find(SiteHostname, { site: siteId, proxy: true, edgeId: { $ne: null } });
  if (rows.length === 0) return;
  const cfg = edgeConfig(deps.env);
  if (!cfg) {
    deps.logger.warn(`deleting site ${siteId} with ${rows.length} proxy hostname(s) and no edge platform configured`);
    return;
  }
  for (const row of rows) {
    try {
      await deleteCustomHostname(cfg, row.edgeId as string);
    } catch (err) {
      deps.logger.warn(`removing ${row.hostname} at the edge platform failed: ${errText(err)}`);
      throw new AppError(
        503,
        `${row.hostname} could not be removed at the edge platform, so the site was kept: try again in a few minutes`,
      );
    }
    await em.nativeUpdate(SiteHostname, { site: siteId, hostname: row.hostname }, { edgeId: null, edgeStatus: 'deleted' });
  }
}
