// The payment provider's webhook events, once each, applied as the state the provider holds now. An event
// about a subscription (or a finished checkout) only says "look again": the subscription is read from the
// provider and that state applied, so an event arriving late or out of order (the provider promises no
// order, and `created` counts whole seconds) never puts an older state back. Of two reads of the same
// subscription, one begun before the state applied was read is not applied over it (two deliveries at
// once). The event id is recorded in the same transaction as its effect, so a redelivery (or two nodes
// receiving it at once) changes nothing, and a failure records nothing (the provider delivers it again).
// One subscription per workspace: a second live one for the same customer (two checkouts paid at once)
// is cancelled at the provider with its unused time credited; the one recorded first is kept.
import type { Orm, SqlConnection, InsertTransaction as Trx } from '@us/db';
import type { Plan } from '@us/shared';
import type Stripe from 'stripe';
import type { Logger } from '../../core/logger.ts';
import { accountOfCustomer, type BillingAccount, ENDED_STATUSES, LIVE_STATUSES } from './accounts.ts';
import { switchPlan } from './months.ts';
import { type BillingProvider, planOfPrice, providerCall } from './provider.ts';

export type EventOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored' | 'second-cancelled';

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);

const idOf = (x: string | { id: string } | null | undefined) => (typeof x === 'string' ? x : (x?.id ?? null));

/** The subscription an event is about: its own object, or for a finished checkout the one it started. */
function subscriptionIdOf(event: Stripe.Event): string | null {
  if (SUBSCRIPTION_EVENTS.has(event.type)) return (event.data.object as Stripe.Subscription).id ?? null;
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object as Stripe.Checkout.Session;
    return session.mode === 'subscription' ? idOf(session.subscription) : null;
  }
  return null;
}

/** The database's clock: reads on several nodes are ordered by one clock. */
export async function databaseNow(conn: SqlConnection): Promise<Date> {
  const [row] = await conn.execute<{ now: Date | string }[]>('select clock_timestamp() as now', [], 'all');
  return new Date(row?.now ?? Date.now());
}

interface Read {
  sub: Stripe.Subscription;
  readAt: Date;
}

/** The subscription as the provider holds it now, and when it was asked; null when the provider has none by that id. */
async function readSubscription(conn: SqlConnection, provider: BillingProvider, id: string): Promise<Read | null> {
  const readAt = await databaseNow(conn);
  const sub = await providerCall('when reading the subscription', () =>
    provider.stripe.subscriptions.retrieve(id).catch((err: { statusCode?: number }) => {
      if (err.statusCode === 404) return null;
      throw err;
    }),
  );
  return sub ? { sub, readAt } : null;
}

/** A second live subscription beside the recorded live one: decided outside the transaction (rolled back). */
class SecondSubscription extends Error {
  constructor(readonly account: BillingAccount & { subscriptionId: string }) {
    super('a second live subscription');
  }
}

const recordEvent = async (conn: SqlConnection, event: Stripe.Event, trx?: Trx) =>
  (
    await conn.execute<{ id: string }[]>(
      'insert into billing_events (id, type) values (?, ?) on conflict (id) do nothing returning id',
      [event.id, event.type],
      'all',
      trx,
    )
  ).length > 0;

/** Writes the subscription's state on the account and moves the workspace to the plan it holds. */
async function applyState(
  conn: SqlConnection,
  trx: Trx,
  account: BillingAccount,
  { sub, readAt }: Read,
  logger?: Pick<Logger, 'warn'>,
): Promise<void> {
  const item = sub.items.data[0];
  const priced = item ? planOfPrice(item.price) : null;
  let plan: Plan | null = null;
  if (LIVE_STATUSES.has(sub.status) && priced) plan = priced.plan;
  else if (ENDED_STATUSES.has(sub.status)) plan = 'Free';
  if (LIVE_STATUSES.has(sub.status) && !priced) {
    logger?.warn(`billing: subscription ${sub.id} has a price that names no plan (lookup key or metadata.plan): plan kept`);
  }
  // The grace period runs from the first time this subscription was seen past due.
  const failingSince =
    sub.status !== 'past_due' ? null : account.subscriptionId === sub.id && account.pastDueSince ? account.pastDueSince : readAt;
  await conn.execute(
    `update billing_accounts set subscription_id = ?, interval = coalesce(?, interval), status = ?, period_end = ?,
            event_at = ?, past_due_since = ?, updated_at = now()
      where workspace_id = ?`,
    [
      // Signed by the provider, still bounded: a status word and an id are short.
      sub.id.slice(0, 255),
      priced?.interval ?? null,
      String(sub.status).slice(0, 32),
      item?.current_period_end ? new Date(item.current_period_end * 1000) : null,
      readAt,
      failingSince,
      account.workspaceId,
    ],
    'run',
    trx,
  );
  if (plan) await switchPlan(conn, account.workspaceId, plan, new Date(), trx);
}

/**
 * A subscription's state a job read from the provider (the grace check), applied as an event's would be: to the
 * account recording that subscription, unless a state read later was applied first. Answers whether it was.
 */
export async function applyRead(conn: SqlConnection, read: Read): Promise<boolean> {
  return conn.transactional(async (trx) => {
    const customerId = idOf(read.sub.customer);
    const account = customerId ? await accountOfCustomer(conn, customerId, trx) : null;
    if (!account || account.subscriptionId !== read.sub.id) return false;
    if (account.eventAt && read.readAt < account.eventAt) return false;
    await applyState(conn, trx, account, read);
    return true;
  });
}

/** In one transaction: the event id, then the subscription's state if it is the one to apply. */
function decide(conn: SqlConnection, event: Stripe.Event, read: Read, logger?: Pick<Logger, 'warn'>): Promise<EventOutcome> {
  const { sub, readAt } = read;
  return conn.transactional(async (trx) => {
    if (!(await recordEvent(conn, event, trx))) return 'duplicate';
    const customerId = idOf(sub.customer);
    const account = customerId ? await accountOfCustomer(conn, customerId, trx) : null;
    if (!account) {
      logger?.warn(`billing: ${event.type} ${event.id} is for customer ${customerId}, which no workspace has: ignored`);
      return 'ignored';
    }
    if (account.subscriptionId && account.subscriptionId !== sub.id && LIVE_STATUSES.has(account.status ?? '')) {
      // Another subscription of this customer while the recorded one is live: one that has ended (or
      // never started) leaves the recorded one alone; a live one is a second, decided outside.
      if (!LIVE_STATUSES.has(sub.status)) return 'stale';
      throw new SecondSubscription(account as BillingAccount & { subscriptionId: string });
    }
    if (account.subscriptionId === sub.id && account.eventAt && readAt < account.eventAt) return 'stale';
    await applyState(conn, trx, account, read, logger);
    return 'applied';
  });
}

export async function applyEvent(
  orm: Orm,
  provider: BillingProvider,
  event: Stripe.Event,
  logger?: Pick<Logger, 'warn'>,
): Promise<EventOutcome> {
  const id = subscriptionIdOf(event);
  if (!id) return 'ignored';
  const conn = orm.em.getConnection();
  const [known] = await conn.execute<{ id: string }[]>('select id from billing_events where id = ?', [event.id], 'all');
  if (known) return 'duplicate';
  // Read before the transaction: no provider call holds a row lock.
  const read = await readSubscription(conn, provider, id);
  if (!read) {
    logger?.warn(`billing: ${event.type} ${event.id} is about subscription ${id}, which the provider does not have: ignored`);
    return 'ignored';
  }
  try {
    return await decide(conn, event, read, logger);
  } catch (err) {
    if (!(err instanceof SecondSubscription)) throw err;
    return secondSubscription(conn, provider, event, read, err.account, logger);
  }
}

/**
 * A second live subscription: if the recorded one is live at the provider too, the second is cancelled
 * there with its unused time credited at once. If the recorded one has in fact ended (its event not here
 * yet), that is applied first and the second becomes the workspace's subscription.
 */
async function secondSubscription(
  conn: SqlConnection,
  provider: BillingProvider,
  event: Stripe.Event,
  read: Read,
  account: BillingAccount & { subscriptionId: string },
  logger?: Pick<Logger, 'warn'>,
): Promise<EventOutcome> {
  const recorded = await readSubscription(conn, provider, account.subscriptionId);
  if (recorded && LIVE_STATUSES.has(recorded.sub.status)) {
    await providerCall('when cancelling a second subscription', () =>
      provider.stripe.subscriptions.cancel(
        read.sub.id,
        { prorate: true, invoice_now: true },
        { idempotencyKey: `second:${read.sub.id}` },
      ),
    );
    logger?.warn(
      `billing: workspace ${account.workspaceId} paid for a second subscription (${read.sub.id}) beside ${account.subscriptionId}: the second was cancelled at the provider, its unused time credited`,
    );
    await recordEvent(conn, event);
    return 'second-cancelled';
  }
  await conn.transactional(async (trx) => {
    const locked = await accountOfCustomer(conn, account.customerId, trx);
    if (locked?.subscriptionId !== account.subscriptionId) return;
    if (recorded) await applyState(conn, trx, locked, recorded, logger);
    else {
      // Gone at the provider altogether: nothing of it is live.
      await conn.execute(
        `update billing_accounts set status = 'canceled', past_due_since = null, updated_at = now() where workspace_id = ?`,
        [locked.workspaceId],
        'run',
        trx,
      );
    }
  });
  try {
    return await decide(conn, event, read, logger);
  } catch (err) {
    // Yet another subscription was recorded meanwhile: the provider redelivers this event.
    if (err instanceof SecondSubscription) throw new Error(`billing: subscriptions of ${account.customerId} keep changing`);
    throw err;
  }
}
