// The payment provider's webhook events, once each: the event id is recorded in the same transaction as
// its effect, so a redelivery (or two nodes receiving it at once) changes nothing, and a failure records
// nothing (the provider delivers it again). Subscription events older than the last one applied to that
// workspace are recorded but not applied: the provider does not promise delivery order.
import type { Orm } from '@us/db';
import type { Plan } from '@us/shared';
import type Stripe from 'stripe';
import type { Logger } from '../../core/logger.ts';
import { accountOfCustomer, ENDED_STATUSES, LIVE_STATUSES } from './accounts.ts';
import { switchPlan } from './months.ts';
import { type BillingProvider, planOfPrice, providerCall } from './provider.ts';

export type EventOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored';

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);

const idOf = (x: string | { id: string } | null | undefined) => (typeof x === 'string' ? x : (x?.id ?? null));

/** The subscription an event is about: its own object, or for a finished checkout the one it started. */
async function subscriptionOf(provider: BillingProvider, event: Stripe.Event): Promise<Stripe.Subscription | null> {
  if (SUBSCRIPTION_EVENTS.has(event.type)) return event.data.object as Stripe.Subscription;
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object as Stripe.Checkout.Session;
    const id = idOf(session.subscription);
    if (session.mode !== 'subscription' || !id) return null;
    return providerCall('when reading the subscription', () => provider.stripe.subscriptions.retrieve(id));
  }
  return null;
}

export async function applyEvent(
  orm: Orm,
  provider: BillingProvider,
  event: Stripe.Event,
  logger?: Pick<Logger, 'warn'>,
): Promise<EventOutcome> {
  // Read before the transaction: no provider call holds a row lock.
  const sub = await subscriptionOf(provider, event);
  if (!sub) return 'ignored';
  const conn = orm.em.getConnection();
  const eventAt = new Date(event.created * 1000);
  return conn.transactional(async (trx) => {
    const fresh = await conn.execute<{ id: string }[]>(
      'insert into billing_events (id, type) values (?, ?) on conflict (id) do nothing returning id',
      [event.id, event.type],
      'all',
      trx,
    );
    if (!fresh.length) return 'duplicate';
    const customerId = idOf(sub.customer);
    const account = customerId ? await accountOfCustomer(conn, customerId, trx) : null;
    if (!account) {
      logger?.warn(`billing: ${event.type} ${event.id} is for customer ${customerId}, which no workspace has: ignored`);
      return 'ignored';
    }
    if (account.eventAt && eventAt < account.eventAt) return 'stale';
    // An old subscription ending while a newer one is live leaves the newer one alone.
    if (account.subscriptionId && account.subscriptionId !== sub.id && ENDED_STATUSES.has(sub.status)) {
      if (LIVE_STATUSES.has(account.status ?? '')) return 'stale';
    }
    const item = sub.items.data[0];
    const priced = item ? planOfPrice(item.price) : null;
    let plan: Plan | null = null;
    if (LIVE_STATUSES.has(sub.status) && priced) plan = priced.plan;
    else if (ENDED_STATUSES.has(sub.status)) plan = 'Free';
    if (LIVE_STATUSES.has(sub.status) && !priced) {
      logger?.warn(`billing: subscription ${sub.id} has a price that names no plan (lookup key or metadata.plan): plan kept`);
    }
    await conn.execute(
      `update billing_accounts set subscription_id = ?, interval = coalesce(?, interval), status = ?, period_end = ?,
              event_at = ?, updated_at = now()
        where workspace_id = ?`,
      [
        // Signed by the provider, still bounded: a status word and an id are short.
        sub.id.slice(0, 255),
        priced?.interval ?? null,
        String(sub.status).slice(0, 32),
        item?.current_period_end ? new Date(item.current_period_end * 1000) : null,
        eventAt,
        account.workspaceId,
      ],
      'run',
      trx,
    );
    if (plan) await switchPlan(conn, account.workspaceId, plan, new Date(), trx);
    return 'applied';
  });
}
