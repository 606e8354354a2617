// checkout_billing and portal_billing: the payment provider's own pages. Checkout takes a payment method
// and starts the subscription (the plan changes when the provider's webhook says it is paid); the portal
// shows invoices and lets the customer change the payment method or cancel.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutInput, CheckoutOutput, PortalOutput } from '@us/shared';
import { loadWorkspace } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { accountOf, ensureCustomer, hasLiveSubscription } from './accounts.ts';
import { type BillingProvider, providerCall, requireProvider } from './provider.ts';

async function ownerEmail(em: EntityManager, workspaceId: string): Promise<string | null> {
  const [row] = await em.getConnection().execute<{ email: string }[]>(
    `select u.email from memberships m join users u on u.id = m.user_id
      where m.workspace_id = ? and m.role = 'owner' order by m.joined_at, u.email limit 1`,
    [workspaceId],
    'all',
  );
  return row?.email ?? null;
}

export async function startCheckout(
  provider: BillingProvider | null,
  em: EntityManager,
  actor: Actor,
  input: CheckoutInput,
  appUrl: string,
): Promise<CheckoutOutput> {
  const p = requireProvider(provider);
  const ws = await loadWorkspace(em, actor);
  const conn = em.getConnection();
  if (hasLiveSubscription(await accountOf(conn, ws.id))) {
    throw new AppError(
      409,
      `This workspace already pays for ${ws.plan}: change the plan with plan_billing (POST /v1/billing/plan), or the payment method in the portal (portal_billing)`,
    );
  }
  const account = await ensureCustomer(conn, p, { id: ws.id, name: ws.name, ownerEmail: await ownerEmail(em, ws.id) });
  const price = await providerCall('when looking up the plan price', () => p.prices.priceId(input.plan, input.interval));
  const metadata = { workspaceId: ws.id, plan: input.plan };
  const session = await providerCall('when starting the checkout', () =>
    p.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: account.customerId,
      client_reference_id: ws.id,
      line_items: [{ price, quantity: 1 }],
      success_url: `${appUrl}/billing?checkout=done`,
      cancel_url: `${appUrl}/billing?checkout=cancelled`,
      metadata,
      subscription_data: { metadata },
    }),
  );
  if (!session.url)
    throw new AppError(503, 'The payment provider made no checkout page: try again in a minute', { retryAfter: 60 });
  return { url: session.url, expiresAt: session.expires_at ? new Date(session.expires_at * 1000).toISOString() : null };
}

export async function openPortal(
  provider: BillingProvider | null,
  em: EntityManager,
  actor: Actor,
  appUrl: string,
): Promise<PortalOutput> {
  const p = requireProvider(provider);
  const ws = await loadWorkspace(em, actor);
  const account = await accountOf(em.getConnection(), ws.id);
  if (!account) {
    throw new AppError(409, 'This workspace has no invoices or payment method yet: choose a paid plan first (checkout_billing)');
  }
  const session = await providerCall('when opening the portal', () =>
    p.stripe.billingPortal.sessions.create({ customer: account.customerId, return_url: `${appUrl}/billing` }),
  );
  return { url: session.url };
}
