// get_billing: the workspace's plan, this UTC month's usage against the allowances (human pageviews and
// server requests from `usage_months`, sites, members with pending invites, proxy hostnames), a linear
// projection to the month's end, and the overage that projection would cost on a paid plan.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteHostname } from '@us/db';
import { type BillingOutput, OVERAGE_USD, PLAN_LIMITS, PLAN_PRICES, PLANS, type Plan } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { loadWorkspace } from '../../actor/access.ts';
import { usageOf } from '../../usage/counters.ts';
import { seatsTaken } from '../members/seats.ts';

/** The UTC month holding `now`: first day, last day, and the share of it gone. */
export function monthPeriod(now: Date): { from: string; to: string; elapsed: number } {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return {
    from: new Date(start).toISOString().slice(0, 10),
    to: new Date(end - 86_400_000).toISOString().slice(0, 10),
    elapsed: Math.min(1, Math.max(0, (now.getTime() - start) / (end - start))),
  };
}

/** Started millions past the allowance, at a price per million: 1 pageview over is the first million. */
const perMillion = (used: number, allowance: number, usd: number) => Math.ceil(Math.max(0, used - allowance) / 1e6) * usd;

/**
 * The month's projection and its overage: counters projected from the rate so far once a tenth of the
 * month is gone (earlier, the count so far), priced per started million past the allowance and per
 * extra proxy hostname; Free never bills.
 */
export function overageOf(
  plan: Plan,
  used: { pageviews: number; requests: number; proxies: number },
  elapsed: number,
): { projected: { pageviews: number | null; requests: number | null }; overage: BillingOutput['overage'] } {
  const limits = PLAN_LIMITS[plan];
  const project = (n: number) => (elapsed >= 0.1 ? Math.round(n / elapsed) : null);
  const projected = { pageviews: project(used.pageviews), requests: project(used.requests) };
  const billed = plan !== 'Free';
  const pageviewsUsd = billed
    ? perMillion(projected.pageviews ?? used.pageviews, limits.humanPageviewsPerMonth, OVERAGE_USD.perMillionPageviews)
    : 0;
  const requestsUsd = billed
    ? perMillion(projected.requests ?? used.requests, limits.serverRequestsPerMonth, OVERAGE_USD.perMillionRequests)
    : 0;
  const proxyHostnamesUsd =
    billed && limits.proxyHostnames !== null
      ? Math.max(0, used.proxies - limits.proxyHostnames) * OVERAGE_USD.perProxyHostname
      : 0;
  return {
    projected,
    overage: { billed, pageviewsUsd, requestsUsd, proxyHostnamesUsd, totalUsd: pageviewsUsd + requestsUsd + proxyHostnamesUsd },
  };
}

export async function billingOverview(
  em: EntityManager,
  actor: Actor,
  now = new Date(),
  configured = false,
): Promise<BillingOutput> {
  const ws = await loadWorkspace(em, actor);
  const usage = await usageOf(em, ws.id, now);
  const limits = PLAN_LIMITS[usage.plan];
  const period = monthPeriod(now);
  const sites = await em.count(Site, { workspace: ws.id });
  const seats = await seatsTaken(em, ws.id);
  const proxies = await em.count(SiteHostname, { proxy: true, site: { workspace: ws.id } });
  const o = overageOf(usage.plan, { pageviews: usage.pageviews, requests: usage.requests, proxies }, period.elapsed);
  return {
    plan: usage.plan,
    status: ws.status,
    configured,
    period,
    usage: {
      humanPageviews: { used: usage.pageviews, allowance: limits.humanPageviewsPerMonth, projected: o.projected.pageviews },
      serverRequests: { used: usage.requests, allowance: limits.serverRequestsPerMonth, projected: o.projected.requests },
      sites: { used: sites, allowance: limits.sites, projected: null },
      members: { used: seats, allowance: limits.members, projected: null },
      proxyHostnames: { used: proxies, allowance: limits.proxyHostnames, projected: null },
    },
    overage: o.overage,
    plans: PLANS.map((plan) => ({
      plan,
      monthlyUsd: PLAN_PRICES[plan].monthly,
      yearlyUsd: PLAN_PRICES[plan].yearly,
      humanPageviews: PLAN_LIMITS[plan].humanPageviewsPerMonth,
      serverRequests: PLAN_LIMITS[plan].serverRequestsPerMonth,
      sites: PLAN_LIMITS[plan].sites,
      members: PLAN_LIMITS[plan].members,
      proxyHostnames: PLAN_LIMITS[plan].proxyHostnames,
    })),
  };
}
