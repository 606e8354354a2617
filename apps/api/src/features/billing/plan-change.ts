// plan_billing: moves a workspace to another plan. Limits follow at once (the plan is written before the
// answer; the provider's webhook later says the same). An upgrade is invoiced at once, prorated; a
// downgrade is credited on the next invoice, and refused while the workspace uses more than the smaller
// plan allows; a first paid plan goes through checkout (a payment method is needed).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlConnection } from '@us/db';
import { type BillingOutput, PLAN_LIMITS, PLANS, type Plan, type PlanChangeInput, planOf } from '@us/shared';
import { loadWorkspace } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { accountOf, hasLiveSubscription } from './accounts.ts';
import { switchPlan } from './months.ts';
import { billingOverview, usageNow } from './overview.ts';
import { type BillingProvider, isPaid, providerCall, requireProvider } from './provider.ts';

const rank = (p: Plan) => PLANS.indexOf(p);
const fmt = (n: number) => n.toLocaleString('en');

/** What the workspace uses beyond `plan`'s limits, each said with what to do about it. */
export async function overLimits(em: EntityManager, workspaceId: string, plan: Plan, now: Date): Promise<string[]> {
  const used = await usageNow(em, workspaceId, now);
  const l = PLAN_LIMITS[plan];
  const over: string[] = [];
  const past = (n: number, limit: number | null) => limit !== null && n > limit;
  if (past(used.sites, l.sites)) over.push(`${used.sites} sites of its ${l.sites} (delete ${used.sites - (l.sites ?? 0)})`);
  if (past(used.seats, l.members)) {
    over.push(`${used.seats} members and pending invitations of its ${l.members} (remove ${used.seats - (l.members ?? 0)})`);
  }
  if (past(used.proxies, l.proxyHostnames)) {
    over.push(
      `${used.proxies} proxy-mode hostnames of its ${l.proxyHostnames} (remove ${used.proxies - (l.proxyHostnames ?? 0)})`,
    );
  }
  if (used.pageviews > l.humanPageviewsPerMonth) {
    over.push(
      `${fmt(used.pageviews)} human pageviews this month of its ${fmt(l.humanPageviewsPerMonth)} (wait for the month to turn)`,
    );
  }
  if (used.requests > l.serverRequestsPerMonth) {
    over.push(
      `${fmt(used.requests)} server requests this month of its ${fmt(l.serverRequestsPerMonth)} (wait for the month to turn)`,
    );
  }
  return over;
}

export async function changePlan(
  provider: BillingProvider | null,
  em: EntityManager,
  actor: Actor,
  input: PlanChangeInput,
  now = new Date(),
): Promise<BillingOutput> {
  const p = requireProvider(provider);
  const ws = await loadWorkspace(em, actor);
  const conn = em.getConnection();
  const current = planOf(ws.plan);
  const account = await accountOf(conn, ws.id);
  const target = input.plan;
  const interval = input.interval ?? account?.interval ?? 'month';
  const overview = () => billingOverview(em.fork(), actor, { configured: true, now });
  if (target === current && (!isPaid(target) || interval === account?.interval)) return overview();

  const smaller = rank(target) < rank(current);
  if (smaller) {
    // Checked and written at once, under the workspace row's lock that adding a site, a member or a proxy hostname
    // takes: one added while the provider is asked meets the smaller plan's limits. (Checked before without the
    // lock, one added meanwhile was kept past them.) Switched back below if the provider's side does not follow.
    await em.transactional(async (tx) => {
      await tx.execute('select 1 from workspaces where id = ? for update', [ws.id]);
      const over = await overLimits(tx, ws.id, target, now);
      if (over.length) {
        throw new AppError(409, `${target} is smaller than what this workspace uses: ${over.join('; ')}. Then try again`, {
          field: 'plan',
        });
      }
      await switchPlan(tx.getConnection(), ws.id, target, now, tx.getTransactionContext());
    });
  }
  try {
    await changeAtProvider(p, conn, ws.id, account, current, target, interval);
  } catch (e) {
    if (smaller) await switchPlan(conn, ws.id, current, new Date());
    throw e;
  }
  if (!smaller) await switchPlan(conn, ws.id, target, now);
  return overview();
}

/** The subscription as the plan change needs it: ended (Free), or its price swapped, charged or credited. */
async function changeAtProvider(
  p: BillingProvider,
  conn: SqlConnection,
  workspaceId: string,
  account: Awaited<ReturnType<typeof accountOf>>,
  current: Plan,
  target: Plan,
  interval: 'month' | 'year',
): Promise<void> {
  if (!isPaid(target)) {
    if (hasLiveSubscription(account)) {
      // Ends at once with the unused time credited, so Free's limits and "never bills" hold from now. While past due
      // nothing is credited: the time was not paid for (a credit then lowered the next overage invoice).
      await providerCall('when ending the subscription', () =>
        p.stripe.subscriptions.cancel(
          account.subscriptionId,
          { prorate: account.status !== 'past_due' },
          { idempotencyKey: `cancel:${account.subscriptionId}` },
        ),
      );
      await conn.execute(
        `update billing_accounts set status = 'canceled', updated_at = now() where workspace_id = ?`,
        [workspaceId],
        'run',
      );
    }
  } else {
    if (!hasLiveSubscription(account)) {
      throw new AppError(
        402,
        `A paid plan needs a payment method first: start a checkout for ${target} (checkout_billing, POST /v1/billing/checkout); the plan changes once it is paid`,
        { field: 'plan', code: 'payment-method-required' },
      );
    }
    // An upgrade (or monthly to yearly) is charged when it takes effect: the prorated difference is
    // invoiced at once. A smaller plan's unused difference is credited on the next invoice.
    const charged = rank(target) > rank(current) || (account.interval === 'month' && interval === 'year');
    // A failing card: the provider applies the new price even when its invoice fails, so the larger plan held
    // through the grace period unpaid (and its allowances lowered the month's overage).
    if (charged && account.status === 'past_due') {
      throw new AppError(
        402,
        'The last payment failed: update the card in the billing portal (portal_billing, POST /v1/billing/portal), then change the plan',
        { field: 'plan', code: 'payment-past-due' },
      );
    }
    const price = await providerCall('when looking up the plan price', () => p.prices.priceId(target, interval));
    const pending = await providerCall('when changing the subscription', async () => {
      const sub = await p.stripe.subscriptions.retrieve(account.subscriptionId);
      const item = sub.items.data[0];
      if (!item) throw new Error(`subscription ${sub.id} has no item`);
      const updated = await p.stripe.subscriptions.update(
        sub.id,
        {
          items: [{ id: item.id, price }],
          // A smaller plan while past due credits nothing: the difference was not paid for.
          proration_behavior: charged ? 'always_invoice' : account.status === 'past_due' ? 'none' : 'create_prorations',
          // A charged change takes effect only once its invoice is paid: with a declined card it waits as the
          // subscription's pending update (the provider's default applied it unpaid, and the larger plan held
          // through the grace period). Metadata is refused beside a pending update before API 2026-05-27.
          ...(charged ? { payment_behavior: 'pending_if_incomplete' as const } : { metadata: { workspaceId, plan: target } }),
        },
        // No key of ours: going back to a plan within a day must change it again (the client keys its own retries).
      );
      return updated.pending_update != null;
    });
    if (pending) {
      throw new AppError(
        402,
        'The card was declined for this change: update it in the billing portal (portal_billing, POST /v1/billing/portal); the plan changes once the payment goes through',
        { field: 'plan', code: 'payment-declined' },
      );
    }
    await conn.execute(
      'update billing_accounts set interval = ?, updated_at = now() where workspace_id = ?',
      [interval, workspaceId],
      'run',
    );
  }
}
