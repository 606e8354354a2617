// Billing through the payment provider, against a local Stripe stand-in: checkout, the portal, plan
// changes (limits at once, upgrades charged at once, downgrades refused while over), signed webhooks
// applied once as the state the provider holds, one subscription per workspace, a cancelled workspace
// over Free's allowances, and the "not configured" answers of a server without Stripe.

import { SiteHostname } from '@us/db';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PriceCatalogue } from '../../../src/features/billing/provider.ts';
import { expectProblem, expectProblemCode } from '../../support/auth-helpers.ts';
import { postReport } from '../../support/collect.ts';
import { createToken, createUser, joinAs, ownerWithToken, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../../support/stripe-standin.ts';

type Obj = Record<string, unknown>;
const DAY = 86_400_000;

describe('billing with Stripe', () => {
  let stripe: StripeStandIn;
  let t: TestServer;

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    t = await startTestServer({
      env: stripeEnv(stripe),
    });
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const owner = () =>
    ownerWithToken(t.deps, ['billing:read', 'billing:write', 'members:write'], { workspaceName: 'Paying workspace' });

  /** Starts a checkout of `plan` (not paid yet): the provider's session. */
  async function checkout(auth: string, plan: string, interval = 'month') {
    const res = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan, interval });
    expect(res.status, res.text).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
    return { checkout: res.body as { url: string; expiresAt: string }, session };
  }

  /** Checks out `plan` and pays it: the workspace is subscribed. */
  async function subscribe(auth: string, plan: string, interval = 'month') {
    const started = await checkout(auth, plan, interval);
    const sub = await stripe.completeCheckout(started.session.id as string);
    return { ...started, sub };
  }

  /** The parameters of the last change the service asked of the subscription at the provider. */
  const lastUpdate = (subscriptionId: string) =>
    stripe.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscriptionId}`).at(-1)?.params;
  const recordedSubscription = async (workspaceId: string) =>
    (
      await t.deps.orm.em
        .getConnection()
        .execute<{ subscription_id: string }[]>('select subscription_id from billing_accounts where workspace_id = ?', [
          workspaceId,
        ])
    )[0]?.subscription_id;

  const billing = async (auth: string) => (await t.request.get('/v1/billing').set('Authorization', auth).expect(200)).body;

  it('checks out a first paid plan: the plan changes when the payment is reported, not before', async () => {
    const o = await owner();
    const res = await t.request
      .post('/v1/billing/checkout')
      .set('Authorization', o.auth)
      .send({ plan: 'Starter', interval: 'year' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.url).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    expect(Date.parse(res.body.expiresAt)).toBeGreaterThan(Date.now());

    const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
    const customer = stripe.customers.get(session.customer as string) as Obj;
    expect(customer).toMatchObject({ email: o.email, name: 'Paying workspace', metadata: { workspaceId: o.workspace.id } });
    expect(session).toMatchObject({
      success_url: `${t.deps.urls.app}/billing?checkout=done`,
      cancel_url: `${t.deps.urls.app}/billing?checkout=cancelled`,
      client_reference_id: o.workspace.id,
    });
    // The plan's price, made once with its lookup key: 90 USD a year.
    expect(stripe.prices.get(session._price as string)).toMatchObject({
      lookup_key: 'unseen_starter_year',
      unit_amount: 9000,
      currency: 'usd',
      recurring: { interval: 'year' },
    });

    // Not paid yet: still Free.
    expect((await billing(o.auth)).plan).toBe('Free');
    await stripe.completeCheckout(session.id as string);
    const after = await billing(o.auth);
    expect(after).toMatchObject({ plan: 'Starter', configured: true, subscription: { status: 'active', interval: 'year' } });
    expect(after.usage.sites.allowance).toBe(20);

    // Already paying: a second checkout is refused, and says what to use instead.
    const again = await t.request.post('/v1/billing/checkout').set('Authorization', o.auth).send({ plan: 'Growth' });
    expectProblem(again, 409);
    expect(again.body.title).toContain('plan_billing');

    // The portal: the provider's page for this customer, coming back to /billing.
    const portal = await t.request.post('/v1/billing/portal').set('Authorization', o.auth).send({});
    expect(portal.status, portal.text).toBe(200);
    expect(portal.body.url).toMatch(new RegExp(`^${stripe.url}/p/session/`));
    const asked = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1);
    expect(asked?.params).toEqual({ customer: session.customer, return_url: `${t.deps.urls.app}/billing` });
  });

  it('refuses checkout input it cannot use, naming the field', async () => {
    const o = await owner();
    expectProblem(await t.request.post('/v1/billing/checkout').set('Authorization', o.auth).send({ plan: 'Free' }), 400, 'plan');
    expectProblem(
      await t.request.post('/v1/billing/checkout').set('Authorization', o.auth).send({ plan: 'Starter', interval: 'week' }),
      400,
      'interval',
    );
    // The portal before any checkout: nothing to show.
    expectProblem(await t.request.post('/v1/billing/portal').set('Authorization', o.auth).send({}), 409);
    // billing:read alone may look, not pay.
    const reader = `Bearer ${(await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['billing:read'] })).token}`;
    const refused = await t.request.post('/v1/billing/checkout').set('Authorization', reader).send({ plan: 'Starter' });
    expectProblemCode(refused, 'scope-missing');
    expect(refused.body.title).toContain('billing:write');
  });

  // The defect: the provider applies a new price even when its invoice fails, so a workspace whose card was failing
  // could take a larger plan and hold it through the grace period unpaid.
  it('refuses a larger plan while the last payment failed (402 payment-past-due); a smaller one still goes', async () => {
    const o = await owner();
    const { sub } = await subscribe(o.auth, 'Growth');
    await stripe.change(sub.id as string, { status: 'past_due' });
    await expect.poll(async () => (await billing(o.auth)).subscription?.status).toBe('past_due');
    const up = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Business' });
    expectProblemCode(up, 'payment-past-due', 'plan');
    expect(up.body.title).toContain('portal');
    const item = ((stripe.subscriptions.get(sub.id as string) as Obj).items as { data: Obj[] }).data[0] as Obj;
    expect((item.price as Obj).lookup_key).toBe('unseen_growth_month');
    expect((await billing(o.auth)).plan).toBe('Growth');
    const down = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Starter' });
    expect(down.status, down.text).toBe(200);
    expect(down.body.plan).toBe('Starter');
  });

  // The defect: with the card declined on the upgrade's own charge (the subscription still active), the provider's
  // default applied the larger price unpaid and the plan switched: Business limits for the grace period, for nothing.
  it('keeps the plan when the card is declined for an upgrade’s charge (402 payment-declined)', async () => {
    const o = await owner();
    const { sub } = await subscribe(o.auth, 'Starter');
    stripe.declineCard = true;
    try {
      const up = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Business' });
      expectProblemCode(up, 'payment-declined', 'plan');
      expect(up.body.title).toContain('portal');
    } finally {
      stripe.declineCard = false;
    }
    const asked = stripe.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${sub.id}`).at(-1);
    expect(asked?.params).toMatchObject({ payment_behavior: 'pending_if_incomplete', proration_behavior: 'always_invoice' });
    const item = ((stripe.subscriptions.get(sub.id as string) as Obj).items as { data: Obj[] }).data[0] as Obj;
    expect((item.price as Obj).lookup_key).toBe('unseen_starter_month');
    expect(await billing(o.auth)).toMatchObject({ plan: 'Starter', subscription: { status: 'active' } });
  });

  it('changes plan at once, keeps the interval, refuses a downgrade while over its limits, and ends on Free', async () => {
    const o = await owner();
    // Without a subscription a paid plan needs checkout first.
    const first = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Growth' });
    expectProblemCode(first, 'payment-method-required', 'plan');
    expect(first.body.title).toContain('checkout');

    const { sub } = await subscribe(o.auth, 'Starter');
    // Starter allows 5 members; Growth 15: the invitations past 5 work the moment the plan changes.
    const up = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Growth' });
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ plan: 'Growth', usage: { members: { allowance: 15 } } });
    const item = ((stripe.subscriptions.get(sub.id as string) as Obj).items as { data: Obj[] }).data[0] as Obj;
    expect((item.price as Obj).lookup_key).toBe('unseen_growth_month');
    // An upgrade is charged when it takes effect: the prorated difference is invoiced at once.
    expect(lastUpdate(sub.id as string)).toMatchObject({ proration_behavior: 'always_invoice' });
    for (let i = 0; i < 6; i++) {
      const inv = await t.request
        .post('/v1/members/invites')
        .set('Authorization', o.auth)
        .send({ email: `seat-${i}-${o.workspace.id}@example.test`, role: 'viewer' });
      expect(inv.status, inv.text).toBe(201);
    }

    // Back to Starter: 7 seats of its 5, refused with what to do; nothing changed at the provider.
    const down = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Starter' });
    expectProblem(down, 409);
    expect(down.body.title).toContain('7 members and pending invitations of its 5 (remove 2)');
    expect((item.price as Obj).lookup_key).toBe('unseen_growth_month');
    expect((await billing(o.auth)).plan).toBe('Growth');

    // Yearly on the same plan: the price changes, the plan stays.
    const yearly = await t.request
      .post('/v1/billing/plan')
      .set('Authorization', o.auth)
      .send({ plan: 'Growth', interval: 'year' });
    expect(yearly.status, yearly.text).toBe(200);
    expect((item.price as Obj).lookup_key).toBe('unseen_growth_year');
    expect(yearly.body.subscription).toMatchObject({ interval: 'year' });
    // Monthly to yearly is charged at once too.
    expect(lastUpdate(sub.id as string)).toMatchObject({ proration_behavior: 'always_invoice' });

    // Within Starter's limits again: a downgrade is credited on the next invoice, not refunded now.
    await t.deps.orm.em.getConnection().execute('delete from invites where workspace_id = ?', [o.workspace.id]);
    const smaller = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Starter' });
    expect(smaller.status, smaller.text).toBe(200);
    expect(smaller.body).toMatchObject({ plan: 'Starter', subscription: { interval: 'year' } });
    expect((item.price as Obj).lookup_key).toBe('unseen_starter_year');
    expect(lastUpdate(sub.id as string)).toMatchObject({ proration_behavior: 'create_prorations' });

    // Free: within Free's limits only (2 seats), then the subscription ends at once.
    const free = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Free' });
    expect(free.status, free.text).toBe(200);
    expect(free.body.plan).toBe('Free');
    expect(stripe.subscriptions.get(sub.id as string)?.status).toBe('canceled');
    // The provider's own event about it changes nothing more.
    await expect.poll(async () => (await billing(o.auth)).subscription?.status).toBe('canceled');
    expect((await billing(o.auth)).plan).toBe('Free');
  });

  it('applies each webhook event once, as the state the provider holds, whatever order events arrive in', async () => {
    const o = await owner();
    // The prices the portal moves between, as the service makes them.
    await t.deps.billing?.prices.priceId('Growth', 'month');
    await t.deps.billing?.prices.priceId('Starter', 'month');
    stripe.autoEvents = false;
    try {
      const { sub } = await subscribe(o.auth, 'Business');
      const id = sub.id as string;
      expect((await billing(o.auth)).plan).toBe('Business');

      // The card fails: past_due keeps the plan for a grace period of 14 days, and the overview says until when.
      const failedAt = Date.now();
      const pastDue = await stripe.change(id, { status: 'past_due' });
      const sent = await stripe.send('customer.subscription.updated', pastDue, { id: `evt_pastdue_${o.workspace.id}` });
      expect(sent).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
      const during = await billing(o.auth);
      expect(during).toMatchObject({ plan: 'Business', subscription: { status: 'past_due' } });
      const ends = Date.parse(during.subscription.graceEndsAt);
      expect(ends).toBeGreaterThanOrEqual(failedAt - 1000 + 14 * DAY);
      expect(ends).toBeLessThanOrEqual(Date.now() + 14 * DAY);

      // Redelivered: nothing changes again.
      const again = await stripe.send('customer.subscription.updated', pastDue, { id: `evt_pastdue_${o.workspace.id}` });
      expect(again.body.outcome).toBe('duplicate');

      // Paid again: no grace period any more.
      await stripe.send('customer.subscription.updated', await stripe.change(id, { status: 'active' }));
      expect(await billing(o.auth)).toMatchObject({ plan: 'Business', subscription: { status: 'active', graceEndsAt: null } });

      // Moved to Growth in the portal; an older event (Starter, a minute before) arriving late changes nothing.
      const growth = await stripe.change(id, { lookupKey: 'unseen_growth_month' });
      const at = Math.floor(Date.now() / 1000);
      await stripe.send('customer.subscription.updated', growth, { created: at });
      const older = structuredClone(growth);
      ((older.items as { data: Obj[] }).data[0] as Obj).price = [...stripe.prices.values()].find(
        (p) => p.lookup_key === 'unseen_starter_month',
      );
      await stripe.send('customer.subscription.updated', older, { created: at - 60 });
      expect((await billing(o.auth)).plan).toBe('Growth');

      // Then to Starter: its event and the Growth one carry the same second, and arrive the wrong way round.
      // The provider holds Starter, and so does the workspace.
      const starter = await stripe.change(id, { lookupKey: 'unseen_starter_month' });
      await stripe.send('customer.subscription.updated', starter, { created: at });
      await stripe.send('customer.subscription.updated', growth, { created: at });
      expect((await billing(o.auth)).plan).toBe('Starter');

      // Ended; then an "active" event arriving late does not bring it back.
      const ended = await stripe.send('customer.subscription.deleted', await stripe.change(id, { status: 'canceled' }));
      expect(ended.body.outcome).toBe('applied');
      expect((await billing(o.auth)).plan).toBe('Free');
      const late = await stripe.send('customer.subscription.updated', growth, { created: at - 3600 });
      expect(late.status).toBe(200);
      expect(await billing(o.auth)).toMatchObject({ plan: 'Free', subscription: { status: 'canceled' } });

      // Other event types are acknowledged and ignored.
      expect((await stripe.send('invoice.paid', { id: 'in_x', object: 'invoice', customer: sub.customer })).body.outcome).toBe(
        'ignored',
      );
    } finally {
      stripe.autoEvents = true;
    }
  });

  // Price ids were kept for the life of the process: a plan re-priced at the provider (its lookup key moved to a new
  // price, the old one archived) kept getting the archived price, and every checkout failed until a restart.
  it('follows a plan re-priced at the provider once its price id is older than the catalogue keeps it', async () => {
    let clock = Date.now();
    const catalogue = new PriceCatalogue(t.deps.billing?.stripe as Stripe, { ttlMs: 60_000, now: () => clock });
    const first = await catalogue.priceId('Business', 'year');
    const old = stripe.prices.get(first) as Obj;
    old.active = false;
    const repriced = { ...old, id: `price_repriced_${Date.now()}`, active: true, unit_amount: 99_900 };
    old.lookup_key = null;
    stripe.prices.set(repriced.id, repriced);
    clock += 59_000;
    expect(await catalogue.priceId('Business', 'year')).toBe(first);
    clock += 2_000;
    expect(await catalogue.priceId('Business', 'year')).toBe(repriced.id);
  });

  it('refuses unsigned or mis-signed webhook requests, recording nothing', async () => {
    const body = JSON.stringify({ id: 'evt_forged', type: 'customer.subscription.updated', created: 1, data: { object: {} } });
    const post = (headers: Record<string, string>, payload: string = body) =>
      t.request
        .post('/v1/billing/webhook')
        .set({ 'content-type': 'application/json', ...headers })
        .send(payload);
    expectProblem(await post({}), 400, 'Stripe-Signature');
    expectProblem(
      await post({ 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }),
      400,
      'Stripe-Signature',
    );
    // Signed with another secret: refused, and never recorded.
    const forged = await stripe.send(
      'customer.subscription.updated',
      { id: 'sub_x', customer: 'cus_x', status: 'active', items: { data: [] } },
      { secret: 'whsec_wrong_secret_123', id: 'evt_forged2' },
    );
    expect(forged.status).toBe(400);
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>("select count(*)::text as n from billing_events where id in ('evt_forged', 'evt_forged2')");
    expect(row?.n).toBe('0');
    expectProblem(await post({ 'stripe-signature': 't=1,v1=00' }, 'x'.repeat(600 * 1024)), 413);
    expectProblem(await t.request.get('/v1/billing/webhook'), 404);
  });

  it('keeps one subscription per workspace: a second one paid at the same time is cancelled with its unused time credited', async () => {
    const o = await owner();
    const warn = vi.spyOn(t.deps.logger, 'warn');
    const warned = () => warn.mock.calls.map((c) => String(c[0]));
    // Two checkouts started while on Free (two tabs), both paid at once.
    const first = await checkout(o.auth, 'Starter');
    const second = await checkout(o.auth, 'Growth');
    const subs = await Promise.all([
      stripe.completeCheckout(first.session.id as string),
      stripe.completeCheckout(second.session.id as string),
    ]);
    const warnings = warned();
    warn.mockRestore();
    const live = subs.filter((s) => stripe.subscriptions.get(s.id as string)?.status === 'active');
    expect(live).toHaveLength(1);
    const kept = live[0] as Obj;
    const extra = subs.find((s) => s !== kept) as Obj;
    expect(stripe.subscriptions.get(extra.id as string)?.status).toBe('canceled');
    const cancelled = stripe.requests.find((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${extra.id}`);
    expect(cancelled?.params).toMatchObject({ prorate: 'true', invoice_now: 'true' });
    expect(warnings.some((w) => w.includes(`paid for a second subscription (${extra.id})`))).toBe(true);
    // The workspace holds the one it recorded first, on that one's plan.
    const keptPlan = kept === subs[0] ? 'Starter' : 'Growth';
    expect(await recordedSubscription(o.workspace.id)).toBe(kept.id);
    await expect.poll(async () => (await billing(o.auth)).plan).toBe(keptPlan);
    expect((await billing(o.auth)).subscription).toMatchObject({ status: 'active' });
    // And a third checkout is refused while it lasts.
    expectProblem(await t.request.post('/v1/billing/checkout').set('Authorization', o.auth).send({ plan: 'Business' }), 409);
  });

  // The race: the smaller plan's limits were checked, then the provider was asked (seconds), then the plan written;
  // a site added meanwhile was checked against the larger plan, and the workspace ended on Free past its limits.
  it('a site added while a move to Free is at the provider meets Free’s limits; the move ends within them', async () => {
    const o = await ownerWithToken(t.deps, ['billing:read', 'billing:write', 'sites:read', 'sites:write']);
    const { sub } = await subscribe(o.auth, 'Starter');
    const em = t.deps.orm.em.fork();
    for (let i = 0; i < 5; i++) await createSite(em, { workspace: o.workspace.id, name: `Allowed ${i}` });
    const slow = stripe.stall(`DELETE /v1/subscriptions/${sub.id}`);
    const moving = t.request
      .post('/v1/billing/plan')
      .set('Authorization', o.auth)
      .send({ plan: 'Free' })
      .then((r) => r);
    try {
      await slow.reached;
      const added = await t.request.post('/v1/sites').set('Authorization', o.auth).send({ name: 'One too many' });
      expectProblemCode(added, 'plan-limit');
    } finally {
      slow.release();
    }
    const moved = await moving;
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ plan: 'Free', usage: { sites: { used: 5 } } });
  });

  it('a move to a smaller plan the provider refuses leaves the plan as it was', async () => {
    const o = await owner();
    const { sub } = await subscribe(o.auth, 'Growth');
    stripe.failNext(1, 400, `POST /v1/subscriptions/${sub.id}`);
    const down = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Starter' });
    expect(down.status).toBeGreaterThanOrEqual(400);
    expect((await billing(o.auth)).plan).toBe('Growth');
  });

  // Unpaid time is not credited: ending a past-due subscription with a credit lowered the next overage invoice.
  it('ends a past-due subscription without crediting its unpaid time', async () => {
    const o = await owner();
    const { sub } = await subscribe(o.auth, 'Starter');
    await stripe.change(sub.id as string, { status: 'past_due' });
    await expect.poll(async () => (await billing(o.auth)).subscription?.status).toBe('past_due');
    const down = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Free' });
    expect(down.status, down.text).toBe(200);
    const cancel = stripe.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${sub.id}`).at(-1);
    expect(cancel?.params).toMatchObject({ prorate: 'false' });
  });

  it('a subscription cancelled in the portal leaves Free holding more than it allows: kept and working, nothing new past it (402)', async () => {
    const o = await ownerWithToken(t.deps, ['billing:read', 'billing:write', 'members:write', 'sites:read', 'sites:write']);
    const { sub } = await subscribe(o.auth, 'Growth');
    // On Growth: 7 sites (Free allows 5), a member and an invitation besides the owner (Free: 2 seats),
    // 2 proxy-mode hostnames (Free: 1).
    const em = t.deps.orm.em.fork();
    const sites = [];
    for (let i = 0; i < 7; i++) sites.push(await createSite(em, { workspace: o.workspace.id, name: `Kept ${i}` }));
    const [one, two] = sites as [Awaited<ReturnType<typeof createSite>>, Awaited<ReturnType<typeof createSite>>];
    for (const [i, s] of [one, two].entries()) {
      em.create(SiteHostname, {
        site: s.siteId,
        hostname: `proxy${i}.${o.workspace.id}.example.test`,
        proxy: true,
        origin: 'https://origin.example.test',
        verifyToken: 'b'.repeat(32),
      });
    }
    await em.flush();
    const host = `kept.${o.workspace.id}.example.test`;
    await t.request.post(`/v1/sites/${one.siteId}/hostnames`).set('Authorization', o.auth).send({ hostname: host }).expect(201);
    const viewer = await joinAs(t, o.workspace.id, 'viewer');
    await t.request
      .post('/v1/members/invites')
      .set('Authorization', o.auth)
      .send({ email: `invited-${o.workspace.id}@example.test`, role: 'viewer' })
      .expect(201);

    await stripe.change(sub.id as string, { status: 'canceled' });
    const after = await billing(o.auth);
    expect(after).toMatchObject({
      plan: 'Free',
      subscription: { status: 'canceled' },
      usage: {
        sites: { used: 7, allowance: 5 },
        members: { used: 3, allowance: 2 },
        proxyHostnames: { used: 2, allowance: 1 },
      },
    });

    // Nothing new past Free's allowances…
    const site = await t.request.post('/v1/sites').set('Authorization', o.auth).send({ name: 'Eighth' });
    expectProblemCode(site, 'plan-limit');
    const invite = await t.request
      .post('/v1/members/invites')
      .set('Authorization', o.auth)
      .send({ email: `another-${o.workspace.id}@example.test`, role: 'viewer' });
    expectProblemCode(invite, 'plan-limit');
    const proxy = await t.request
      .post(`/v1/sites/${two.siteId}/hostnames`)
      .set('Authorization', o.auth)
      .send({ hostname: `proxy9.${o.workspace.id}.example.test`, proxy: true, origin: 'https://origin.example.test' });
    expectProblemCode(proxy, 'plan-limit');

    // …and everything there still works: the member reads all seven sites, a site past the fifth still collects.
    const viewerToken = await createToken(t.deps, {
      userId: viewer.user.id,
      workspaceId: o.workspace.id,
      scopes: ['sites:read'],
    });
    const seen = await t.request.get('/v1/sites').set('Authorization', `Bearer ${viewerToken.token}`).expect(200);
    expect(seen.body.sites).toHaveLength(7);
    const id = `kept${Date.now().toString(36)}`;
    await postReport(t, { publicKey: one.publicKey, hostname: host }, { extra: { id } }).expect(202);
    await t.deps.ingest.flushNow();
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from pageviews where site_id = ? and pageview_id = ?', [
        one.siteId,
        id,
      ]);
    expect(row?.n).toBe(1);
  });

  it('lists the webhook route in OpenAPI beside the three billing routes', async () => {
    const doc = (await t.request.get('/v1/openapi.json').expect(200)).body;
    expect(doc.paths['/v1/billing/webhook'].post.responses).toHaveProperty('400');
    for (const p of ['/v1/billing/plan', '/v1/billing/checkout', '/v1/billing/portal']) {
      expect(doc.paths[p].post['x-scope'], p).toBe('billing:write');
    }
  });
});

describe('billing without Stripe', () => {
  it('runs with everyone on Free: changes answer 503 "not configured", the overview says so', async () => {
    const t = await startTestServer();
    try {
      const { user, workspace } = await createUser(t.deps);
      await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'One' });
      const auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['billing:read', 'billing:write'] })).token}`;
      expect((await t.request.get('/v1/billing').set('Authorization', auth).expect(200)).body).toMatchObject({
        plan: 'Free',
        configured: false,
        subscription: null,
        months: [],
      });
      for (const [path, body] of [
        ['/v1/billing/plan', { plan: 'Growth' }],
        ['/v1/billing/checkout', { plan: 'Growth' }],
        ['/v1/billing/portal', {}],
      ] as const) {
        const res = await t.request.post(path).set('Authorization', auth).send(body);
        expectProblemCode(res, 'not-configured');
        expect(res.body.title, path).toContain('not configured');
      }
      const hook = await t.request.post('/v1/billing/webhook').set('stripe-signature', 't=1,v1=00').send({});
      expectProblemCode(hook, 'not-configured');
    } finally {
      await t.close();
    }
  });
});

describe('billing webhook budget', () => {
  it('turns a flood from one address away (429) while the provider’s own events from another still apply', async () => {
    const stripe = await startStripeStandIn();
    const t = await startTestServer({ env: { ...stripeEnv(stripe), TRUST_PROXY: 'true' } });
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
    try {
      const flood = (n: number) =>
        Promise.all(
          Array.from({ length: n }, () =>
            t.request
              .post('/v1/billing/webhook')
              .set({ 'x-forwarded-for': '203.0.113.66', 'stripe-signature': 't=1,v1=00', 'content-type': 'application/json' })
              .send('{}')
              .then((r) => r.status),
          ),
        );
      const first = await flood(600);
      expect(first.every((s) => s === 400)).toBe(true);
      const past = await t.request
        .post('/v1/billing/webhook')
        .set({ 'x-forwarded-for': '203.0.113.66', 'stripe-signature': 't=1,v1=00' })
        .send({});
      expectProblem(past, 429);
      expect(past.headers['retry-after']).toBe('60');

      // Meanwhile a real checkout's events (from the stand-in's own address) are applied.
      const { user, workspace } = await createUser(t.deps);
      const auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['billing:read', 'billing:write'] })).token}`;
      const res = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan: 'Growth' });
      const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
      await stripe.completeCheckout(session.id as string);
      expect((await t.request.get('/v1/billing').set('Authorization', auth).expect(200)).body.plan).toBe('Growth');
    } finally {
      await t.close();
      await stripe.close();
    }
  });
});
