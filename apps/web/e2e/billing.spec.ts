import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../api/src/features/billing/usage-counters.ts';
import { createUser } from '../../api/test/support/server.ts';
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
});
