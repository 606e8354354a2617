// get_billing: the workspace's plan, this UTC month's usage against the allowances (human pageviews and
// server requests from `usage_months`, sites, members with pending invites, proxy hostnames), a linear
// projection to the month's end, and the overage that projection would cost: this month's segments on
// paid plans (features/billing/segments.ts), the running one to the month's end on the plan held now.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteHostname, type SqlConnection } from '@us/db';
import { type BillingOutput, PLAN_LIMITS, PLAN_PRICES, PLANS } from '@us/shared';
import { loadWorkspace } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { seatsTaken } from '../members/index.ts';
import { accountOf } from './accounts.ts';
import { graceEndsAt } from './grace.ts';
import { closedMonths } from './months.ts';
import { monthPeriod, monthSpan, overageOf } from './pricing.ts';
import { segmentsOf } from './segments.ts';
import { usageOf } from './usage-counters.ts';

/** What the workspace uses now: this month's counters and the countable things it holds. */
export async function usageNow(em: EntityManager, workspaceId: string, now: Date) {
  const usage = await usageOf(em, workspaceId, now);
  const sites = await em.count(Site, { workspace: workspaceId });
  const seats = await seatsTaken(em, workspaceId);
  const proxies = await em.count(SiteHostname, { proxy: true, site: { workspace: workspaceId } });
  return { plan: usage.plan, pageviews: usage.pageviews, requests: usage.requests, sites, seats, proxies };
}

export async function billingOverview(
  em: EntityManager,
  actor: Actor,
  opts: { configured: boolean; now?: Date },
): Promise<BillingOutput> {
  const now = opts.now ?? new Date();
  const ws = await loadWorkspace(em, actor);
  const used = await usageNow(em, ws.id, now);
  const limits = PLAN_LIMITS[used.plan];
  const period = monthPeriod(now);
  const conn = em.getConnection();
  const { start, end } = monthSpan(now);
  const closed = await segmentsOf(conn, ws.id, period.from);
  const runningFrom = closed.at(-1)?.endedAt.getTime() ?? start;
  const o = overageOf(used.plan, used, period.elapsed, {
    monthMs: end - start,
    runningMs: end - runningFrom,
    closed,
    runningProxyPeak: await runningProxyPeak(conn, ws.id, period.from, closed.length === 0),
  });
  const account = await accountOf(conn, ws.id);
  const grace = account ? graceEndsAt(account) : null;
  return {
    plan: used.plan,
    status: ws.status,
    configured: opts.configured,
    period,
    usage: {
      humanPageviews: { used: used.pageviews, allowance: limits.humanPageviewsPerMonth, projected: o.projected.pageviews },
      serverRequests: { used: used.requests, allowance: limits.serverRequestsPerMonth, projected: o.projected.requests },
      sites: { used: used.sites, allowance: limits.sites, projected: null },
      members: { used: used.seats, allowance: limits.members, projected: null },
      proxyHostnames: { used: used.proxies, allowance: limits.proxyHostnames, projected: null },
    },
    overage: o.overage,
    subscription:
      account?.subscriptionId && account.status
        ? {
            status: account.status,
            interval: account.interval,
            periodEnd: account.periodEnd?.toISOString() ?? null,
            graceEndsAt: grace?.toISOString() ?? null,
          }
        : null,
    months: await closedMonths(conn, ws.id),
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

/**
 * The proxy-mode hostnames the running segment is billed on: the most it has held (the month's first segment: the
 * month's peak so far), as closing it counts them (segments.ts, `closeSegment`).
 */
async function runningProxyPeak(conn: SqlConnection, workspaceId: string, month: string, first: boolean): Promise<number> {
  const [row] = await conn.execute<{ peak: number | null }[]>(
    `select ${first ? 'greatest(proxy_peak, segment_proxy_peak)' : 'segment_proxy_peak'} as peak
       from usage_months where workspace_id = ? and month = ?::date`,
    [workspaceId, month],
    'all',
  );
  return row?.peak ?? 0;
}
