// Plan arithmetic: the UTC month, the projection of its counters, and what going past the allowances
// costs on a paid plan (spec §8): 10 USD per started extra 1M human pageviews, 1 USD per started extra 1M
// server requests, 1 USD per proxy hostname over the allowance; Free never bills.
import { type BillingOutput, OVERAGE_USD, PLAN_LIMITS, type Plan } from '@us/shared';

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

/** Overage of a whole month, in cents: started millions past the allowances, proxy hostnames over it. */
export function monthOverageCents(plan: Plan, used: { pageviews: number; requests: number; proxies: number }): number {
  return Math.round(overageOf(plan, used, 1).overage.totalUsd * 100);
}
