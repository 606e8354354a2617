// Month-end overage against the Stripe stand-in: a closed month is priced in proportion (a cent per 1,000
// pageviews over) with the plan it was on and reported exactly once, with two nodes running the job at
// once, a provider outage in between, or a run that stopped after the provider answered; a yearly plan's
// and an ended subscription's on an invoice of their own. Free never bills. (Plan changes within a month:
// billing-month-end.http.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBilling } from '../../../src/features/billing/billing-job.ts';
import type { BillingProvider } from '../../../src/features/billing/provider.ts';
import { overageKey, reportOverages } from '../../../src/features/billing/report.ts';
import { monthOf } from '../../../src/features/billing/usage-counters.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../../support/stripe-standin.ts';

type Obj = Record<string, unknown>;

describe('month-end overage', () => {
  let stripe: StripeStandIn;
  let t: TestServer;
  let node2: TestServer;
  const now = new Date();
  const lastMonth = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)));

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    const env = stripeEnv(stripe);
    t = await startTestServer({ env });
    // A second node on the same database: the job must still report each month once.
    node2 = await startTestServer({ env });
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
  });
  afterAll(async () => {
    await node2?.close();
    await t?.close();
    await stripe?.close();
  });

  /** A workspace subscribed to `plan` (monthly unless told) that used this much last month. */
  async function paying(plan: string, used: { pageviews: number; requests: number; proxies: number }, interval = 'month') {
    const u = await createUser(t.deps);
    const auth = `Bearer ${(await createToken(t.deps, { userId: u.user.id, workspaceId: u.workspace.id, scopes: ['billing:read', 'billing:write'] })).token}`;
    const res = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan, interval });
    expect(res.status, res.text).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
    const sub = await stripe.completeCheckout(session.id as string);
    await usedLastMonth(u.workspace.id, used);
    return { ...u, auth, sub, customer: session.customer as string };
  }

  async function usedLastMonth(workspaceId: string, used: { pageviews: number; requests: number; proxies: number }) {
    await t.deps.orm.em
      .getConnection()
      .execute('insert into usage_months (workspace_id, month, pageviews, requests, proxy_peak) values (?, ?::date, ?, ?, ?)', [
        workspaceId,
        lastMonth,
        used.pageviews,
        used.requests,
        used.proxies,
      ]);
  }

  const itemsOf = (customer: string) => stripe.invoiceItems.filter((i) => i.customer === customer);
  const monthsOf = async (auth: string) =>
    (await t.request.get('/v1/billing').set('Authorization', auth).expect(200)).body.months;

  it('prices the closed month with its plan and reports it once, though two nodes run the job at once', async () => {
    // Starter: 250k pageviews, 5M requests, 3 proxy hostnames. 1.35M pageviews → 1.1M over at 10 USD per
    // million (11 USD); 6M requests → 1M over at 1 USD per million (1 USD); 5 proxy hostnames → 2 over (2 USD).
    const w = await paying('Starter', { pageviews: 1_350_000, requests: 6_000_000, proxies: 5 });
    const runs = await Promise.all([
      runBilling(t.deps.orm, t.deps.billing, { now, wait: true }),
      runBilling(node2.deps.orm, node2.deps.billing, { now, wait: true }),
    ]);
    expect(runs.every((r) => r.ran)).toBe(true);
    const items = itemsOf(w.customer);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      amount: 1400,
      currency: 'usd',
      subscription: w.sub.id,
      metadata: { workspaceId: w.workspace.id, month: lastMonth.slice(0, 7), overage_key: overageKey(w.workspace.id, lastMonth) },
    });
    expect(items[0]?.description).toContain(`${lastMonth.slice(0, 7)} on Starter: 1,350,000 human pageviews of 250,000`);
    expect(items[0]?.description).toContain('5 proxy-mode hostnames of 3');
    expect(await monthsOf(w.auth)).toEqual([{ month: lastMonth, plan: 'Starter', overageUsd: 14, reported: true }]);

    // Later runs find nothing new.
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer)).toHaveLength(1);
  });

  // The overview priced the month's proxy hostnames on those held now, the month's bill on the most held: 6 added and
  // 3 removed showed no overage, and the bill then charged 3.
  it('projects proxy-hostname overage on the most the month held, as the bill counts it', async () => {
    const p = await paying('Starter', { pageviews: 0, requests: 0, proxies: 0 });
    await t.deps.orm.em.getConnection().execute(
      `insert into usage_months (workspace_id, month, proxy_peak, segment_proxy_peak) values (?, ?::date, 6, 6)
       on conflict (workspace_id, month) do update set proxy_peak = 6, segment_proxy_peak = 6`,
      [p.workspace.id, monthOf(now)],
    );
    const overview = (await t.request.get('/v1/billing').set('Authorization', p.auth).expect(200)).body;
    expect(overview.usage.proxyHostnames).toMatchObject({ used: 0 });
    // Priced by the time on the plan, from the checkout (just now) to the month's end: the month's time on Free before
    // it is not (this read 3 and failed from the first half-day of each month on).
    const at = new Date();
    const [start, end] = [
      Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
      Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1),
    ];
    expect(overview.overage.proxyHostnamesUsd).toBeGreaterThan(0);
    expect(overview.overage.proxyHostnamesUsd).toBeCloseTo((3 * (end - at.getTime())) / (end - start), 1);
  });

  it('keeps a month through a provider outage and reports it at the next run, once', async () => {
    // One pageview over Growth's million: one cent.
    const w = await paying('Growth', { pageviews: 1_000_001, requests: 0, proxies: 0 });
    // More failures than the client's own retries (2): this run gives up on it.
    stripe.failNext(50, 503);
    const failed = await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    stripe.failNext(0);
    expect(failed.failed).toBeGreaterThan(0);
    expect(itemsOf(w.customer)).toHaveLength(0);
    expect(await monthsOf(w.auth)).toEqual([{ month: lastMonth, plan: 'Growth', overageUsd: 0.01, reported: false }]);
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ last_error: string | null; attempts: number }[]>(
        'select last_error, attempts from billing_months where workspace_id = ? and month = ?::date',
        [w.workspace.id, lastMonth],
      );
    expect(row?.attempts).toBeGreaterThan(0);
    expect(row?.last_error).toBeTruthy();

    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer).map((i) => i.amount)).toEqual([1]);
    expect((await monthsOf(w.auth))[0].reported).toBe(true);
  });

  it('a month the provider keeps refusing goes after the others, so months stuck on a gone customer never hold newer ones back', async () => {
    const conn = t.deps.orm.em.getConnection();
    const earlier = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 15)));
    // Three older months of customers the provider no longer knows, refused at every run so far.
    const stuck: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { workspace } = await createUser(t.deps);
      stuck.push(workspace.id);
      await conn.execute('insert into billing_accounts (workspace_id, customer_id) values (?, ?)', [
        workspace.id,
        `cus_gone_${i}_${workspace.id}`,
      ]);
      await conn.execute(
        `insert into billing_months (workspace_id, month, plan, pageviews, requests, proxies, amount_cents, state, attempts)
         values (?, ?::date, 'Starter', 300000, 0, 0, 50, 'pending', 5)`,
        [workspace.id, earlier],
      );
    }
    const w = await paying('Growth', { pageviews: 1_000_001, requests: 0, proxies: 0 });
    await conn.execute(
      `insert into billing_months (workspace_id, month, plan, pageviews, requests, proxies, amount_cents, state)
       values (?, ?::date, 'Growth', 1000001, 0, 0, 1, 'pending')`,
      [w.workspace.id, lastMonth],
    );
    try {
      // A run with room for three months: the new one goes first.
      const sent = await reportOverages(conn, t.deps.billing as BillingProvider, {
        perRun: 3,
        workspaceIds: [...stuck, w.workspace.id],
      });
      expect(sent).toEqual({ reported: 1, failed: 2 });
      expect(itemsOf(w.customer).map((i) => i.amount)).toEqual([1]);
    } finally {
      await conn.execute(`delete from billing_months where workspace_id = any(?::uuid[])`, [`{${stuck.join(',')}}`]);
    }
  });

  it('finds the item a stopped run already made instead of making a second', async () => {
    const w = await paying('Starter', { pageviews: 300_000, requests: 0, proxies: 0 });
    // A run that reached the provider and stopped before it could write down the answer.
    await t.deps.billing?.stripe.invoiceItems.create({
      customer: w.customer,
      amount: 50,
      currency: 'usd',
      metadata: { overage_key: overageKey(w.workspace.id, lastMonth) },
    });
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer)).toHaveLength(1);
    expect((await monthsOf(w.auth))[0]).toMatchObject({ overageUsd: 0.5, reported: true });
  });

  it('closes the month with the old plan before a plan change, so an upgrade after midnight does not reprice it', async () => {
    const w = await paying('Starter', { pageviews: 2_000_000, requests: 0, proxies: 0 });
    const up = await t.request.post('/v1/billing/plan').set('Authorization', w.auth).send({ plan: 'Business' });
    expect(up.status, up.text).toBe(200);
    // Business would allow 5M: on Starter, 1.75M over is 17.50 USD.
    expect(up.body.months).toEqual([{ month: lastMonth, plan: 'Starter', overageUsd: 17.5, reported: false }]);
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer).map((i) => i.amount)).toEqual([1750]);
  });

  it('bills a yearly plan’s overage at the end of the month it happened in, on an invoice of its own', async () => {
    // 10,000 pageviews over yearly Starter's 250,000: 10 cents, not left for the next yearly invoice.
    const w = await paying('Starter', { pageviews: 260_000, requests: 0, proxies: 0 }, 'year');
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer)).toMatchObject([{ amount: 10, subscription: null }]);
    const key = overageKey(w.workspace.id, lastMonth);
    expect(stripe.invoices.filter((i) => i.customer === w.customer)).toMatchObject([
      { auto_advance: true, metadata: { overage_key: key } },
    ]);
    const made = stripe.requests.find((r) => r.path === '/v1/invoices' && r.params.customer === w.customer);
    expect(made?.params).toMatchObject({ pending_invoice_items_behavior: 'include', auto_advance: 'true' });
    expect((await monthsOf(w.auth))[0]).toMatchObject({ month: lastMonth, plan: 'Starter', overageUsd: 0.1, reported: true });
  });

  it('bills a paid month even after the subscription ended, on an invoice of its own; never bills Free', async () => {
    const w = await paying('Starter', { pageviews: 400_000, requests: 0, proxies: 0 });
    // Cancelled in the portal before the job ran: the month was closed on Starter first.
    await stripe.change(w.sub.id as string, { status: 'canceled' });
    expect((await t.request.get('/v1/billing').set('Authorization', w.auth).expect(200)).body.plan).toBe('Free');
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer)).toMatchObject([{ amount: 150, subscription: null }]);
    expect(stripe.invoices.filter((i) => i.customer === w.customer)).toHaveLength(1);

    // A Free workspace far past every allowance: no month closed, nothing sent.
    const free = await createUser(t.deps);
    await usedLastMonth(free.workspace.id, { pageviews: 9_000_000, requests: 90_000_000, proxies: 9 });
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>('select count(*)::text as n from billing_months where workspace_id = ?', [free.workspace.id]);
    expect(row?.n).toBe('0');
    expect(stripe.requests.some((r) => JSON.stringify(r.params).includes(free.workspace.id))).toBe(false);
  });

  // The defect: the item was made, the invoice refused; the next run found the item, took the month as reported
  // and never made the invoice, so a yearly or ended plan's overage stayed pending at the provider for good.
  it('makes the invoice a run could not make after its item, at the next run', async () => {
    const w = await paying('Starter', { pageviews: 270_000, requests: 0, proxies: 0 }, 'year');
    stripe.failNext(5, 500, 'POST /v1/invoices');
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    expect(itemsOf(w.customer)).toMatchObject([{ amount: 20, invoice: null }]);
    expect((await monthsOf(w.auth))[0]).toMatchObject({ overageUsd: 0.2, reported: false });
    stripe.failNext(0);
    await runBilling(t.deps.orm, t.deps.billing, { now, wait: true });
    const invoices = stripe.invoices.filter((i) => i.customer === w.customer);
    expect(invoices).toHaveLength(1);
    expect(itemsOf(w.customer)).toMatchObject([{ amount: 20, invoice: invoices[0]?.id }]);
    expect((await monthsOf(w.auth))[0]).toMatchObject({ overageUsd: 0.2, reported: true });
  });
});
