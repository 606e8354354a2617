// Billing through the payment provider, against a local Stripe stand-in: checkout, the portal, plan
// changes (limits at once, downgrades refused while over), signed webhooks applied once and in order,
// and the "not configured" answers of a server without Stripe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, expectProblemCode } from '../../support/auth-helpers.ts';
import { createToken, createUser, ownerWithToken, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../../support/stripe-standin.ts';

type Obj = Record<string, unknown>;

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

  /** Checks out `plan` and pays it: the workspace is subscribed. */
  async function subscribe(auth: string, plan: string, interval = 'month') {
    const res = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan, interval });
    expect(res.status, res.text).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
    const sub = await stripe.completeCheckout(session.id as string);
    return { checkout: res.body as { url: string; expiresAt: string }, session, sub };
  }

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

    // Free: within Free's limits only (2 seats), then the subscription ends at once.
    await t.deps.orm.em.getConnection().execute('delete from invites where workspace_id = ?', [o.workspace.id]);
    const free = await t.request.post('/v1/billing/plan').set('Authorization', o.auth).send({ plan: 'Free' });
    expect(free.status, free.text).toBe(200);
    expect(free.body.plan).toBe('Free');
    expect(stripe.subscriptions.get(sub.id as string)?.status).toBe('canceled');
    // The provider's own event about it changes nothing more.
    await expect.poll(async () => (await billing(o.auth)).subscription?.status).toBe('canceled');
    expect((await billing(o.auth)).plan).toBe('Free');
  });

  it('applies each webhook event once and in order, and refuses unsigned or mis-signed ones', async () => {
    const o = await owner();
    stripe.autoEvents = false;
    try {
      const { sub } = await subscribe(o.auth, 'Business');
      expect((await billing(o.auth)).plan).toBe('Business');

      // A past_due subscription keeps its plan while the provider retries the payment.
      const pastDue = { ...sub, status: 'past_due' };
      const sent = await stripe.send('customer.subscription.updated', pastDue, { id: `evt_pastdue_${o.workspace.id}` });
      expect(sent).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
      expect(await billing(o.auth)).toMatchObject({ plan: 'Business', subscription: { status: 'past_due' } });

      // Redelivered: nothing changes again.
      const again = await stripe.send('customer.subscription.updated', pastDue, { id: `evt_pastdue_${o.workspace.id}` });
      expect(again.body.outcome).toBe('duplicate');

      // Ended; then an older "active" event arriving late does not bring it back.
      const ended = await stripe.send('customer.subscription.deleted', { ...sub, status: 'canceled' });
      expect(ended.body.outcome).toBe('applied');
      expect((await billing(o.auth)).plan).toBe('Free');
      const late = await stripe.send(
        'customer.subscription.updated',
        { ...sub, status: 'active' },
        { created: Math.floor(Date.now() / 1000) - 3600 },
      );
      expect(late.body.outcome).toBe('stale');
      expect((await billing(o.auth)).plan).toBe('Free');

      // Other event types are acknowledged and ignored.
      expect((await stripe.send('invoice.paid', { id: 'in_x', object: 'invoice', customer: sub.customer })).body.outcome).toBe(
        'ignored',
      );
    } finally {
      stripe.autoEvents = true;
    }

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
