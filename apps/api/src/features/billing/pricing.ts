// Plan arithmetic: the UTC month, the projection of its counters, and what going past the allowances
// costs on a paid plan (spec §8), in proportion and in whole cents: 10 USD per 1M human pageviews (1 cent
// per 1,000), 1 USD per 1M server requests (1 cent per 10,000), 1 USD per proxy hostname and month over
// the allowance. A month is priced from its plan segments (features/billing/segments.ts): each paid
// segment's allowances are prorated to its share of the month, the extras of each item are summed over
// the paid segments and rounded up to the cent once per month and item. Free never bills.
import { type BillingOutput, OVERAGE_USD, PLAN_LIMITS, type Plan } from '@us/shared';

/** The prices in cents: per million pageviews or requests, per proxy hostname held a whole month. */
export const OVERAGE_CENTS = {
  perMillionPageviews: OVERAGE_USD.perMillionPageviews * 100,
  perMillionRequests: OVERAGE_USD.perMillionRequests * 100,
  perProxyHostnameMonth: OVERAGE_USD.perProxyHostname * 100,
} as const;

/** The UTC month holding `now`: first day, last day, and the share of it gone. */
export function monthPeriod(now: Date): { from: string; to: string; elapsed: number } {
  const { start, end } = monthSpan(now);
  return {
    from: new Date(start).toISOString().slice(0, 10),
    to: new Date(end - 86_400_000).toISOString().slice(0, 10),
    elapsed: Math.min(1, Math.max(0, (now.getTime() - start) / (end - start))),
  };
}

/** Start and end (ms) of the UTC month holding `at`. */
export function monthSpan(at: Date): { start: number; end: number } {
  return {
    start: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
    end: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1),
  };
}

/** A stretch of a month on one plan: how long (ms), what the counters grew by, the most proxy hostnames held. */
export interface PlanSegment {
  plan: Plan;
  ms: number;
  pageviews: number;
  requests: number;
  proxies: number;
}

/** A month's overage per item and in all, in cents. */
export interface OverageCents {
  pageviews: number;
  requests: number;
  proxyHostnames: number;
  total: number;
}

const positive = (n: bigint) => (n > 0n ? n : 0n);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const int = (n: number) => BigInt(Math.max(0, Math.round(n)));

/**
 * The overage of a month of `monthMs` from its segments. Exact: each extra is kept multiplied by the
 * month's length (a whole number), so no share of an allowance is ever rounded before the one rounding up.
 */
export function segmentsOverageCents(segments: PlanSegment[], monthMs: number): OverageCents {
  const month = int(monthMs);
  let pageviews = 0n;
  let requests = 0n;
  let proxies = 0n;
  for (const s of segments) {
    if (s.plan === 'Free') continue;
    const l = PLAN_LIMITS[s.plan];
    const ms = int(Math.min(s.ms, monthMs));
    pageviews += positive(int(s.pageviews) * month - BigInt(l.humanPageviewsPerMonth) * ms);
    requests += positive(int(s.requests) * month - BigInt(l.serverRequestsPerMonth) * ms);
    if (l.proxyHostnames !== null) proxies += positive(int(s.proxies) - BigInt(l.proxyHostnames)) * ms;
  }
  const cents = {
    pageviews: Number(ceilDiv(pageviews * BigInt(OVERAGE_CENTS.perMillionPageviews), 1_000_000n * month)),
    requests: Number(ceilDiv(requests * BigInt(OVERAGE_CENTS.perMillionRequests), 1_000_000n * month)),
    proxyHostnames: Number(ceilDiv(proxies * BigInt(OVERAGE_CENTS.perProxyHostnameMonth), month)),
  };
  return { ...cents, total: cents.pageviews + cents.requests + cents.proxyHostnames };
}

/** Overage of a whole month on one plan, in cents. */
export function monthOverageCents(plan: Plan, used: { pageviews: number; requests: number; proxies: number }): number {
  return segmentsOverageCents([{ plan, ms: 1, ...used }], 1).total;
}

/** Earlier segments of this month, closed by plan changes, and how long the running one lasts to the month's end. */
export interface MonthSoFar {
  monthMs: number;
  runningMs: number;
  closed: PlanSegment[];
  /** The most proxy-mode hostnames the running segment has held: it is billed on that peak, not on those held now. */
  runningProxyPeak?: number;
}

/**
 * The month's projection and its overage: counters projected from the rate so far once a tenth of the
 * month is gone (earlier, the count so far). The running segment (on `plan`, to the month's end) holds
 * what the projection adds to the closed segments; it and they are priced as the month will be.
 */
export function overageOf(
  plan: Plan,
  used: { pageviews: number; requests: number; proxies: number },
  elapsed: number,
  soFar: MonthSoFar = { monthMs: 1, runningMs: 1, closed: [] },
): { projected: { pageviews: number | null; requests: number | null }; overage: BillingOutput['overage'] } {
  const project = (n: number) => (elapsed >= 0.1 ? Math.round(n / elapsed) : null);
  const projected = { pageviews: project(used.pageviews), requests: project(used.requests) };
  const before = (k: 'pageviews' | 'requests') => soFar.closed.reduce((n, s) => n + s[k], 0);
  const running: PlanSegment = {
    plan,
    ms: soFar.runningMs,
    pageviews: Math.max(0, (projected.pageviews ?? used.pageviews) - before('pageviews')),
    requests: Math.max(0, (projected.requests ?? used.requests) - before('requests')),
    proxies: Math.max(used.proxies, soFar.runningProxyPeak ?? 0),
  };
  const cents = segmentsOverageCents([...soFar.closed, running], soFar.monthMs);
  const usd = (c: number) => c / 100;
  return {
    projected,
    overage: {
      billed: plan !== 'Free' || soFar.closed.some((s) => s.plan !== 'Free'),
      pageviewsUsd: usd(cents.pageviews),
      requestsUsd: usd(cents.requests),
      proxyHostnamesUsd: usd(cents.proxyHostnames),
      totalUsd: usd(cents.total),
    },
  };
}
