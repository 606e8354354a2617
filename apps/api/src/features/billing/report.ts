// Month-end overage to the payment provider, exactly once per workspace and month. The closed month's
// row (`billing_months`, state pending) is the claim; the reporter runs under the billing job's lock (one
// node at a time); the invoice item carries the month's key as metadata and as the provider's idempotency
// key, so a run that stopped after the provider answered finds the item instead of making a second.
import type { SqlConnection } from '@us/db';
import { OVERAGE_USD, PLAN_LIMITS } from '@us/shared';
import type Stripe from 'stripe';
import { LIVE_STATUSES } from './accounts.ts';
import type { PlanSegment } from './pricing.ts';
import type { BillingProvider } from './provider.ts';
import { type ClosedSegment, monthBounds, segmentsOf } from './segments.ts';

interface Pending {
  workspace_id: string;
  month: string;
  amount_cents: number;
  closed_at: Date | string;
  customer_id: string;
  subscription_id: string | null;
  status: string | null;
  interval: string | null;
}

const fmt = (n: number) => n.toLocaleString('en');
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const PRICES = `Prices: ${OVERAGE_USD.perMillionPageviews} USD per 1M human pageviews, ${OVERAGE_USD.perMillionRequests} USD per 1M server requests, ${OVERAGE_USD.perProxyHostname} USD per proxy-mode hostname a month, past the allowances (prorated to the part of the month on each plan), rounded up to the cent`;
/** Stripe keeps descriptions short; a month with many plan changes is cut here. */
const DESCRIPTION_MAX = 500;

/** What one paid segment passed: each counter over its (prorated) allowance, proxy hostnames over theirs. */
function passed(s: PlanSegment, monthMs: number): string[] {
  const l = PLAN_LIMITS[s.plan];
  const share = (n: number) => Math.round((n * Math.min(s.ms, monthMs)) / monthMs);
  const parts: string[] = [];
  if (s.pageviews > share(l.humanPageviewsPerMonth)) {
    parts.push(`${fmt(s.pageviews)} human pageviews of ${fmt(share(l.humanPageviewsPerMonth))}`);
  }
  if (s.requests > share(l.serverRequestsPerMonth)) {
    parts.push(`${fmt(s.requests)} server requests of ${fmt(share(l.serverRequestsPerMonth))}`);
  }
  if (l.proxyHostnames !== null && s.proxies > l.proxyHostnames) {
    parts.push(`${s.proxies} proxy-mode hostnames of ${l.proxyHostnames}`);
  }
  return parts;
}

/**
 * The invoice line: the month, and each allowance passed on each paid plan it was on (one plan all month:
 * "2026-10 on Starter: …"; with plan changes, each paid stretch with its dates and prorated allowances).
 */
export function overageDescription(month: string, segments: ClosedSegment[]): string {
  const { start, end } = monthBounds(month);
  const ym = month.slice(0, 7);
  const whole = segments.length === 1 ? segments[0] : undefined;
  const text = whole
    ? `Unseen Stats overage, ${ym} on ${whole.plan}: ${passed(whole, end - start).join('; ')}. ${PRICES}.`
    : `Unseen Stats overage, ${ym}: ${segments
        .filter((s) => s.plan !== 'Free')
        .map((s) => {
          const parts = passed(s, end - start);
          const when = `${day(s.startedAt.getTime())} to ${day(s.endedAt.getTime() - 1)}`;
          return `${s.plan} ${when}: ${parts.length ? parts.join(', ') : 'within its allowances'}`;
        })
        .join('; ')}. ${PRICES}.`;
  return text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX - 1)}…` : text;
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

async function reportOne(conn: SqlConnection, provider: BillingProvider, r: Pending): Promise<string> {
  const { stripe } = provider;
  const key = overageKey(r.workspace_id, r.month);
  const found = await findItem(stripe, r, key);
  if (found) {
    // A run that stopped (or whose invoice the provider refused) after the item was made: an item no subscription
    // invoices still needs its own invoice, or it waits on the customer for good.
    if (found.invoice === null && !found.parent?.subscription_details) await invoiceOfItsOwn(stripe, r, key);
    return found.id;
  }
  // On a monthly subscription's next invoice (it comes at the month's end anyway). A yearly one's would
  // come months later, and with none left there is none: then on an invoice of its own, now.
  const live = r.subscription_id && LIVE_STATUSES.has(r.status ?? '') && r.interval === 'month' ? r.subscription_id : undefined;
  const item = await stripe.invoiceItems.create(
    {
      customer: r.customer_id,
      amount: r.amount_cents,
      currency: 'usd',
      description: overageDescription(r.month, await segmentsOf(conn, r.workspace_id, r.month)),
      subscription: live,
      metadata: { workspaceId: r.workspace_id, month: r.month.slice(0, 7), overage_key: key },
    },
    { idempotencyKey: key },
  );
  if (!live) await invoiceOfItsOwn(stripe, r, key);
  return item.id;
}

/** The overage's own invoice, now, with the customer's pending items (the month's overage item among them). */
async function invoiceOfItsOwn(stripe: Stripe, r: Pending, key: string): Promise<void> {
  await stripe.invoices.create(
    { customer: r.customer_id, auto_advance: true, pending_invoice_items_behavior: 'include', metadata: { overage_key: key } },
    { idempotencyKey: `${key}:invoice` },
  );
}

export interface OverageRunOptions {
  /** Months sent in one run at most (default 500); the rest wait for the next run. */
  perRun?: number;
  /** Only these workspaces' months (tests on a shared database). */
  workspaceIds?: string[];
}

/**
 * Sends the pending months to the provider, those tried least often first: a month the provider keeps refusing
 * (a customer deleted there) goes after the others, so such months never hold newer ones back. A failure is
 * kept on the row (attempts, last error) and tried again at the next run; nothing is sent twice.
 */
export async function reportOverages(
  conn: SqlConnection,
  provider: BillingProvider,
  opts: OverageRunOptions = {},
): Promise<{ reported: number; failed: number }> {
  const ids = opts.workspaceIds ? `{${opts.workspaceIds.join(',')}}` : null;
  const pending = await conn.execute<Pending[]>(
    `select b.workspace_id::text as workspace_id, to_char(b.month, 'YYYY-MM-DD') as month, b.amount_cents, b.closed_at,
            a.customer_id, a.subscription_id, a.status, a.interval
       from billing_months b join billing_accounts a on a.workspace_id = b.workspace_id
      where b.state = 'pending' and (?::uuid[] is null or b.workspace_id = any(?::uuid[]))
      order by b.attempts, b.month, b.workspace_id limit ?`,
    [ids, ids, opts.perRun ?? 500],
    'all',
  );
  let reported = 0;
  let failed = 0;
  for (const r of pending) {
    try {
      const itemId = await reportOne(conn, provider, r);
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
