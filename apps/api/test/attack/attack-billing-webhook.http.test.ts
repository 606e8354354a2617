import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_BUDGETS } from '../../src/core/hot/address-budget.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../support/stripe-standin.ts';

type Obj = Record<string, unknown>;

/**
 * A stranger floods the billing webhook with unsigned requests from the address the payment provider's
 * events come from (here both are 127.0.0.1). The webhook's per-address budget counts only requests
 * whose signature fails: the stranger is turned away (429) once past it, the provider's signed events
 * are still applied, and other sites' visitors are still counted.
 */
describe('a stranger flooding the billing webhook from the provider’s own address', () => {
  let stripe: StripeStandIn;
  let t: TestServer;
  let bystander: CollectSite;

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    t = await startTestServer({ env: stripeEnv(stripe) });
    stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
    bystander = await collectSite(t, `bystander-${randomBytes(4).toString('hex')}.example`);
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const flood = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        t.request
          .post('/v1/billing/webhook')
          .set({
            'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
            'content-type': 'application/json',
          })
          .send('{"id":"evt_forged","type":"customer.subscription.deleted"}')
          .then((r) => r.status),
      ),
    );

  it('cannot spend the budget the provider’s signed events need', async () => {
    const first = await flood(CHECK_BUDGETS.billingWebhook + 20);
    expect(first.filter((s) => s === 400)).toHaveLength(CHECK_BUDGETS.billingWebhook);
    expect(first.filter((s) => s === 429)).toHaveLength(20);

    // The provider, from the same address, while the stranger keeps going: a checkout is paid and applied.
    const more = flood(50);
    const { user, workspace } = await createUser(t.deps);
    const auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['billing:read', 'billing:write'] })).token}`;
    const res = await t.request.post('/v1/billing/checkout').set('Authorization', auth).send({ plan: 'Growth' });
    expect(res.status, res.text).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.url === res.body.url) as Obj;
    // Throws unless each signed event is answered 200.
    await stripe.completeCheckout(session.id as string);
    expect((await more).every((s) => s === 429)).toBe(true);
    expect((await t.request.get('/v1/billing').set('Authorization', auth).expect(200)).body.plan).toBe('Growth');

    // Other sites' visitors are still served and counted.
    const id = randomBytes(8).toString('hex');
    await postReport(t, bystander, { extra: { id } }).expect(202);
    await t.deps.ingest.flushNow();
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from pageviews where site_id = ? and pageview_id = ?', [
        bystander.siteId,
        id,
      ]);
    expect(row?.n).toBe(1);
  });
});
