import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../api/src/features/billing/usage-counters.ts';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../../api/test/support/stripe-standin.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;

describe('billing page with a payment provider, in a real browser', () => {
  let stripe: StripeStandIn;
  beforeAll(async () => {
    stripe = await startStripeStandIn();
  });
  afterAll(() => stripe?.close());
  const suite = dashboardSuite({ env: () => stripeEnv(stripe) });

  it('checks out yearly Growth on the provider’s page, is refused a plan it does not fit, switches, opens the portal', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
    const owner = await createUser(t.deps, { workspaceName: 'Billing workspace' });
    for (let i = 0; i < 21; i++) await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: `Site ${i}` });
    const now = new Date();
    const lastMonth = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)));
    await t.deps.orm.em
      .getConnection()
      .execute('insert into usage_months (workspace_id, month, pageviews) values (?, ?::date, ?)', [
        owner.workspace.id,
        lastMonth,
        1_500_000,
      ]);

    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT);
    await page.goto(`${t.url}/billing`);
    await page.getByRole('heading', { name: 'Plan: Free' }).waitFor();

    // Yearly Growth: the provider's payment page, then back with the plan changed.
    await page.getByRole('radio', { name: 'Yearly' }).check();
    await page.getByRole('button', { name: 'Choose Growth' }).click();
    await page.waitForURL(new RegExp(`^${stripe.url}/c/pay/`));
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/billing\?checkout=done$/);
    await page.getByText('Thank you: the workspace is on Growth.').waitFor();
    await page.getByRole('heading', { name: 'Plan: Growth' }).waitFor();
    expect(await page.getByTestId('billing-subscription').textContent()).toContain('Subscription active, billed yearly');
    expect(await page.getByTestId('billing-usage').textContent()).toContain('Sites21 (unlimited)');

    // Starter allows 20 sites: refused with what to do, and the plan stays.
    await page.getByRole('button', { name: 'Switch to Starter' }).click();
    await page.getByText('21 sites of its 20 (delete 1)').waitFor();
    await t.deps.orm.em
      .getConnection()
      .execute("delete from sites where workspace_id = ? and name = 'Site 20'", [owner.workspace.id]);
    await page.getByRole('button', { name: 'Switch to Starter' }).click();
    await page.getByRole('heading', { name: 'Plan: Starter' }).waitFor();
    // Last month was closed on Free when the checkout was paid: its 1.5M pageviews are never billed.
    const months = page.getByRole('table', { name: 'Closed months' });
    await months.waitFor();
    expect(await months.locator('tbody tr').first().textContent()).toBe(`${lastMonth.slice(0, 7)}Free0 USD—`);
    const sub = [...stripe.subscriptions.values()].find(
      (s) => (s.metadata as { workspaceId?: string }).workspaceId === owner.workspace.id,
    ) as { items: { data: { price: { lookup_key: string } }[] } };
    expect(sub.items.data[0]?.price.lookup_key).toBe('unseen_starter_year');
    await page.screenshot({ path: '/tmp/e2e-billing-paid.png', fullPage: true });

    // Invoices: the provider's portal, and back.
    await page.getByRole('button', { name: 'Invoices and payment method' }).click();
    await page.waitForURL(new RegExp(`^${stripe.url}/p/session/`));
    await page.getByRole('link', { name: 'Return' }).click();
    await page.waitForURL(/\/billing$/);
    await page.getByRole('heading', { name: 'Plan: Starter' }).waitFor();
    await context.close();
  });
  it('says when a failing card ends the plan, and what a cancelled workspace holds past Free’s allowances', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
    const owner = await createUser(t.deps, { workspaceName: 'Lapsing workspace' });
    const auth = `Bearer ${(await createToken(t.deps, { userId: owner.user.id, workspaceId: owner.workspace.id, scopes: ['billing:write'] })).token}`;
    const started = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan: 'Growth' });
    expect(started.status, started.text).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.url === started.body.url) as { id: string };
    const sub = await stripe.completeCheckout(session.id);
    for (let i = 0; i < 7; i++) await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: `Held ${i}` });

    // The card fails: the plan holds for 14 days, and the page says until when.
    await stripe.change(sub.id as string, { status: 'past_due' });
    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT);
    await page.goto(`${t.url}/billing`);
    await page.getByRole('heading', { name: 'Plan: Growth' }).waitFor();
    const ends = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const nextDay = new Date(Date.now() + 14 * 86_400_000 + 60_000).toISOString().slice(0, 10);
    const failing = await page.getByText('Payment failed; the Growth plan ends on').textContent();
    expect([ends, nextDay].some((d) => failing?.includes(`ends on ${d} unless the card is updated`))).toBe(true);

    // Cancelled in the provider's portal: Free, with its seven sites kept and the page saying so.
    await stripe.change(sub.id as string, { status: 'canceled' });
    await page.reload();
    await page.getByRole('heading', { name: 'Plan: Free' }).waitFor();
    expect(await page.getByTestId('billing-held-over').textContent()).toContain(
      'This workspace holds more than the Free plan allows: 7 sites of its 5. Nothing was deleted and all of it keeps working',
    );
    // Its month still bills the Growth part, and the page says for what.
    expect(await page.getByTestId('billing-overage').textContent()).toContain('for the part of the month on a paid plan');
    await page.screenshot({ path: '/tmp/e2e-billing-cancelled.png', fullPage: true });
    await context.close();
  });
});
