// Month-end overage to the payment provider, exactly once per workspace and month. The closed month's
// row (`billing_months`, state pending) is the claim; the reporter runs under the billing job's lock (one
// node at a time); the invoice item carries the month's key as metadata and as the provider's idempotency
// key, so a run that stopped after the provider answered finds the item instead of making a second.
import type { SqlConnection } from '@us/db';
import { OVERAGE_USD, PLAN_LIMITS, type Plan, planOf } from '@us/shared';
import type Stripe from 'stripe';
import { LIVE_STATUSES } from './accounts.ts';
import type { BillingProvider } from './provider.ts';

interface Pending {
  workspace_id: string;
  month: string;
  plan: string;
  pageviews: string;
  requests: string;
  proxies: number;
  amount_cents: number;
  closed_at: Date | string;
  customer_id: string;
  subscription_id: string | null;
  status: string | null;
}

const fmt = (n: number) => n.toLocaleString('en');

/** The invoice line: the month, the plan, and each allowance that was passed. */
export function overageDescription(plan: Plan, month: string, used: { pageviews: number; requests: number; proxies: number }) {
  const l = PLAN_LIMITS[plan];
  const parts: string[] = [];
  if (used.pageviews > l.humanPageviewsPerMonth) {
    parts.push(
      `${fmt(used.pageviews)} human pageviews of ${fmt(l.humanPageviewsPerMonth)} (${OVERAGE_USD.perMillionPageviews} USD per started extra million)`,
    );
  }
  if (used.requests > l.serverRequestsPerMonth) {
    parts.push(
      `${fmt(used.requests)} server requests of ${fmt(l.serverRequestsPerMonth)} (${OVERAGE_USD.perMillionRequests} USD per started extra million)`,
    );
  }
  if (l.proxyHostnames !== null && used.proxies > l.proxyHostnames) {
    parts.push(`${used.proxies} proxy-mode hostnames of ${l.proxyHostnames} (${OVERAGE_USD.perProxyHostname} USD each extra)`);
  }
  return `Unseen Stats overage, ${month.slice(0, 7)} on ${plan}: ${parts.join('; ')}`;
}

export const overageKey = (workspaceId: string, month: string) => `overage:${workspaceId}:${month.slice(0, 7)}`;

/** An item this month's key already made (a run that stopped after the provider answered). */
async function findItem(stripe: Stripe, r: Pending, key: string): Promise<Stripe.InvoiceItem | null> {
  const since = Math.floor(new Date(r.closed_at).getTime() / 1000) - 86_400;
  for await (const item of stripe.invoiceItems.list({ customer: r.customer_id, created: { gte: since }, limit: 100 })) {
    if (item.metadata?.overage_key === key) return item;
  }
  return null;
}

async function reportOne(provider: BillingProvider, r: Pending): Promise<string> {
  const { stripe } = provider;
  const key = overageKey(r.workspace_id, r.month);
  const found = await findItem(stripe, r, key);
  if (found) return found.id;
  const plan = planOf(r.plan);
  const used = { pageviews: Number(r.pageviews), requests: Number(r.requests), proxies: r.proxies };
  // On the subscription's next invoice while it lasts; with none left, on an invoice of its own now.
  const live = r.subscription_id && LIVE_STATUSES.has(r.status ?? '') ? r.subscription_id : undefined;
  const item = await stripe.invoiceItems.create(
    {
      customer: r.customer_id,
      amount: r.amount_cents,
      currency: 'usd',
      description: overageDescription(plan, r.month, used),
      subscription: live,
      metadata: { workspaceId: r.workspace_id, month: r.month.slice(0, 7), overage_key: key },
    },
    { idempotencyKey: key },
  );
  if (!live) {
    await stripe.invoices.create(
      { customer: r.customer_id, auto_advance: true, pending_invoice_items_behavior: 'include', metadata: { overage_key: key } },
      { idempotencyKey: `${key}:invoice` },
    );
  }
  return item.id;
}

/**
 * Sends every pending month to the provider. A failure is kept on the row (attempts, last error) and
 * tried again at the next run; nothing is sent twice.
 */
export async function reportOverages(
  conn: SqlConnection,
  provider: BillingProvider,
): Promise<{ reported: number; failed: number }> {
  const pending = await conn.execute<Pending[]>(
    `select b.workspace_id::text as workspace_id, to_char(b.month, 'YYYY-MM-DD') as month, b.plan, b.pageviews::text as pageviews,
            b.requests::text as requests, b.proxies, b.amount_cents, b.closed_at, a.customer_id, a.subscription_id, a.status
       from billing_months b join billing_accounts a on a.workspace_id = b.workspace_id
      where b.state = 'pending' order by b.month, b.workspace_id limit 500`,
    [],
    'all',
  );
  let reported = 0;
  let failed = 0;
  for (const r of pending) {
    try {
      const itemId = await reportOne(provider, r);
      await conn.execute(
        `update billing_months set state = 'reported', item_id = ?, reported_at = now(), attempts = attempts + 1, last_error = null
          where workspace_id = ? and month = ?::date and state = 'pending'`,
        [itemId, r.workspace_id, r.month],
        'run',
      );
      reported += 1;
    } catch (err) {
      failed += 1;
      await conn.execute(
        'update billing_months set attempts = attempts + 1, last_error = ? where workspace_id = ? and month = ?::date',
        [String((err as Error).message ?? err).slice(0, 500), r.workspace_id, r.month],
        'run',
      );
    }
  }
  return { reported, failed };
}
