// A workspace's account at the payment provider (`billing_accounts`): its customer, its subscription and
// that subscription's state as the provider last told it (read from the provider on each of its events).
import type { SqlConnection, InsertTransaction as Trx } from '@us/db';
import type { BillingInterval } from '@us/shared';
import type { BillingProvider } from './provider.ts';
import { providerCall } from './provider.ts';

export interface BillingAccount {
  workspaceId: string;
  customerId: string;
  subscriptionId: string | null;
  interval: BillingInterval | null;
  status: string | null;
  periodEnd: Date | null;
  /** When the state applied was read from the provider: a read begun earlier is never applied over it. */
  eventAt: Date | null;
  /** Since when the payment has been failing (status past_due), for the grace period. */
  pastDueSince: Date | null;
}

/** Subscription states that hold a paid plan (past_due: the provider is still retrying the payment). */
export const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);
/** States that end it: the workspace is back on Free. (`incomplete`: first payment pending, nothing changes.) */
export const ENDED_STATUSES = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused']);

export const hasLiveSubscription = (a: BillingAccount | null): a is BillingAccount & { subscriptionId: string } =>
  !!a?.subscriptionId && LIVE_STATUSES.has(a.status ?? '');

interface Row {
  workspace_id: string;
  customer_id: string;
  subscription_id: string | null;
  interval: BillingInterval | null;
  status: string | null;
  period_end: Date | string | null;
  event_at: Date | string | null;
  past_due_since: Date | string | null;
}

const COLUMNS =
  'workspace_id::text as workspace_id, customer_id, subscription_id, interval, status, period_end, event_at, past_due_since';

const toAccount = (r: Row): BillingAccount => ({
  workspaceId: r.workspace_id,
  customerId: r.customer_id,
  subscriptionId: r.subscription_id,
  interval: r.interval,
  status: r.status,
  // Raw rows carry times as text or Date depending on the driver's settings: made Dates here.
  periodEnd: r.period_end ? new Date(r.period_end) : null,
  eventAt: r.event_at ? new Date(r.event_at) : null,
  pastDueSince: r.past_due_since ? new Date(r.past_due_since) : null,
});

export async function accountOf(conn: SqlConnection, workspaceId: string, trx?: Trx): Promise<BillingAccount | null> {
  const [row] = await conn.execute<Row[]>(
    `select ${COLUMNS} from billing_accounts where workspace_id = ?`,
    [workspaceId],
    'all',
    trx,
  );
  return row ? toAccount(row) : null;
}

export async function accountOfCustomer(conn: SqlConnection, customerId: string, trx?: Trx): Promise<BillingAccount | null> {
  const [row] = await conn.execute<Row[]>(
    `select ${COLUMNS} from billing_accounts where customer_id = ? for update`,
    [customerId],
    'all',
    trx,
  );
  return row ? toAccount(row) : null;
}

/**
 * The workspace's customer at the provider, made on first need. The provider's idempotency key makes
 * two requests at once (or a retry after a lost answer) one customer; the row keeps the first.
 */
export async function ensureCustomer(
  conn: SqlConnection,
  provider: BillingProvider,
  ws: { id: string; name: string; ownerEmail: string | null },
): Promise<BillingAccount> {
  const known = await accountOf(conn, ws.id);
  if (known) return known;
  const customer = await providerCall('when making the customer', () =>
    provider.stripe.customers.create(
      { name: ws.name, email: ws.ownerEmail ?? undefined, metadata: { workspaceId: ws.id } },
      { idempotencyKey: `customer:${ws.id}` },
    ),
  );
  await conn.execute(
    'insert into billing_accounts (workspace_id, customer_id) values (?, ?) on conflict (workspace_id) do nothing',
    [ws.id, customer.id],
    'run',
  );
  return (await accountOf(conn, ws.id)) as BillingAccount;
}
