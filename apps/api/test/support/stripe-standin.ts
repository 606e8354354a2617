// A local stand-in for Stripe on 127.0.0.1, speaking its documented shapes: form-encoded requests with
// bracketed keys (`line_items[0][price]`), bearer secret keys, `Idempotency-Key` (a replay answers the
// first answer; a different request under the same key is refused), lists, `{error: {type, message}}`
// refusals, and webhooks signed as Stripe signs them (`Stripe-Signature: t=…,v1=HMAC-SHA256(t.body)`),
// computed here on its own rather than by the client library under test. The resources: customers,
// prices (with lookup keys), checkout sessions, portal sessions, subscriptions, invoice items, invoices.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, unknown>;

export interface StripeStandIn {
  /** STRIPE_API_URL for the server under test. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  /** Where signed events go (the server under test's /v1/billing/webhook). */
  webhookUrl: string;
  customers: Map<string, Obj>;
  prices: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  invoiceItems: Obj[];
  invoices: Obj[];
  /** Every request: method, path, and its decoded parameters. */
  requests: { method: string; path: string; params: Obj; idempotencyKey?: string }[];
  /** The customer pays the checkout: the subscription starts and its events are sent. Answers the subscription. */
  completeCheckout(sessionId: string, status?: string): Promise<Obj>;
  /**
   * Changes a subscription as the provider does on its own (a plan or cancellation in its portal, a
   * failed payment): its status, or its price by lookup key. Sends `customer.subscription.updated` (or
   * `.deleted` when it ends) when `autoEvents` is on. Answers a copy of the subscription as it is now.
   */
  change(subscriptionId: string, to: { status?: string; lookupKey?: string }): Promise<Obj>;
  /** Sends a signed event (`created` in seconds; default now). Answers the webhook's status and body. */
  send(
    type: string,
    object: Obj,
    opts?: { created?: number; id?: string; secret?: string },
  ): Promise<{ status: number; body: Obj }>;
  /** The next `n` API requests answer this status (an outage); only those to `path` (`POST /v1/invoices`) when named. */
  failNext(n: number, status?: number, path?: string): void;
  /**
   * API requests to `path` (`POST /v1/subscriptions/sub_…`) wait until the answer's `release` is called (a slow
   * provider); `reached` settles once one is waiting.
   */
  stall(path: string): { reached: Promise<void>; release(): void };
  /** Subscription changes made through the API send their events (as Stripe does); off to send them by hand. */
  autoEvents: boolean;
  /**
   * The customer's card is declined: a change whose proration is invoiced at once (`always_invoice`) is kept as
   * the subscription's `pending_update` with `payment_behavior=pending_if_incomplete`, and otherwise applied with
   * the subscription `past_due` (Stripe's default, `allow_incomplete`).
   */
  declineCard: boolean;
  close(): Promise<void>;
}

/** The settings that point a server at the stand-in. */
export const stripeEnv = (s: StripeStandIn) => ({
  STRIPE_SECRET_KEY: s.secretKey,
  STRIPE_WEBHOOK_SECRET: s.webhookSecret,
  STRIPE_API_URL: s.url,
});

/** `a[b][0][c]=v` pairs into nested objects and arrays. */
export function decodeForm(body: string): Obj {
  const out: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let at: Obj | unknown[] = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1] as string);
      const key = Array.isArray(at) ? Number(part) : part;
      const holder = at as Record<string | number, unknown>;
      if (last) holder[key] = value;
      else {
        holder[key] ??= nextIsIndex ? [] : {};
        at = holder[key] as Obj;
      }
    });
  }
  return out;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(9).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

export async function startStripeStandIn(opts: { secretKey?: string; webhookSecret?: string } = {}): Promise<StripeStandIn> {
  const secretKey = opts.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = opts.webhookSecret ?? `whsec_${randomBytes(16).toString('hex')}`;
  const customers = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const portals = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoiceItems: Obj[] = [];
  const invoices: Obj[] = [];
  const requests: StripeStandIn['requests'] = [];
  const idempotent = new Map<string, { request: string; status: number; body: unknown }>();
  let failures: { n: number; status: number; path?: string } = { n: 0, status: 500 };
  const stalls = new Map<string, { arrived(): void; released: Promise<void> }>();
  let base = '';

  const refusal = (status: number, type: string, message: string, param?: string) => ({
    status,
    body: { error: { type, message, ...(param ? { param } : {}) } },
  });
  const list = (path: string, data: Obj[]) => ({ object: 'list', url: path, has_more: false, data });

  function subscriptionEvent(type: string, sub: Obj) {
    if (self.autoEvents) void self.send(type, sub);
  }

  function makeSubscription(customer: string, priceId: string, metadata: Obj, status: string): Obj {
    const price = prices.get(priceId);
    const start = now();
    const sub: Obj = {
      id: newId('sub'),
      object: 'subscription',
      customer,
      status,
      metadata,
      created: start,
      cancel_at_period_end: false,
      items: {
        object: 'list',
        data: [
          {
            id: newId('si'),
            object: 'subscription_item',
            price,
            quantity: 1,
            current_period_start: start,
            current_period_end: start + 30 * 86_400,
          },
        ],
      },
    };
    subscriptions.set(sub.id as string, sub);
    return sub;
  }

  function route(method: string, path: string, params: Obj): { status: number; body: unknown } {
    const [, , resource, id, sub] = path.split('/');
    if (method === 'POST' && path === '/v1/customers') {
      const c = {
        id: newId('cus'),
        object: 'customer',
        name: params.name ?? null,
        email: params.email ?? null,
        metadata: params.metadata ?? {},
      };
      customers.set(c.id, c);
      return { status: 200, body: c };
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys = (params.lookup_keys as string[] | undefined) ?? [];
      const found = [...prices.values()].filter((p) => keys.includes(p.lookup_key as string) && p.active);
      return { status: 200, body: list(path, found) };
    }
    if (method === 'POST' && path === '/v1/prices') {
      if (!params.product && !params.product_data)
        return refusal(400, 'invalid_request_error', 'Missing required param: product.', 'product');
      const recurring = params.recurring as Obj | undefined;
      if (params.lookup_key && [...prices.values()].some((p) => p.lookup_key === params.lookup_key)) {
        return refusal(400, 'invalid_request_error', 'A price with this lookup_key already exists.', 'lookup_key');
      }
      const price = {
        id: newId('price'),
        object: 'price',
        active: true,
        currency: params.currency,
        unit_amount: Number(params.unit_amount),
        lookup_key: params.lookup_key ?? null,
        recurring: recurring ? { interval: recurring.interval, interval_count: 1 } : null,
        metadata: params.metadata ?? {},
        product: newId('prod'),
      };
      prices.set(price.id, price);
      return { status: 200, body: price };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const items = params.line_items as Obj[] | undefined;
      const priceId = items?.[0]?.price as string | undefined;
      if (params.mode !== 'subscription' || !priceId || !prices.has(priceId)) {
        return refusal(400, 'invalid_request_error', 'line_items[0][price]: No such price.', 'line_items[0][price]');
      }
      if (!customers.has(params.customer as string))
        return refusal(400, 'invalid_request_error', 'No such customer.', 'customer');
      const s = {
        id: newId('cs_test'),
        object: 'checkout.session',
        mode: 'subscription',
        status: 'open',
        customer: params.customer,
        client_reference_id: params.client_reference_id ?? null,
        metadata: params.metadata ?? {},
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        subscription: null,
        expires_at: now() + 86_400,
        url: '',
        _price: priceId,
        _subscriptionMetadata: (params.subscription_data as Obj | undefined)?.metadata ?? {},
      };
      s.url = `${base}/c/pay/${s.id}`;
      sessions.set(s.id, s);
      return { status: 200, body: s };
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(params.customer as string))
        return refusal(400, 'invalid_request_error', 'No such customer.', 'customer');
      const p = {
        id: newId('bps'),
        object: 'billing_portal.session',
        customer: params.customer,
        return_url: params.return_url,
        url: '',
      };
      p.url = `${base}/p/session/${p.id}`;
      portals.set(p.id, p);
      return { status: 200, body: p };
    }
    if (resource === 'subscriptions' && id && !sub) {
      const s = subscriptions.get(id);
      if (!s) return refusal(404, 'invalid_request_error', `No such subscription: '${id}'`, 'id');
      if (method === 'GET') return { status: 200, body: s };
      if (method === 'DELETE') {
        if (s.status === 'canceled') return refusal(400, 'invalid_request_error', 'This subscription is already canceled.');
        s.status = 'canceled';
        s.canceled_at = now();
        subscriptionEvent('customer.subscription.deleted', s);
        return { status: 200, body: s };
      }
      if (method === 'POST') {
        const items = (params.items as Obj[] | undefined) ?? [];
        const data = (s.items as { data: Obj[] }).data;
        const invoiced = params.proration_behavior === 'always_invoice';
        if (self.declineCard && invoiced && params.payment_behavior === 'pending_if_incomplete') {
          if (params.metadata) return refusal(400, 'invalid_request_error', 'metadata is not supported with pending updates.');
          s.pending_update = { expires_at: now() + 82_800, subscription_items: items };
          return { status: 200, body: s };
        }
        if (self.declineCard && invoiced) s.status = 'past_due';
        for (const change of items) {
          const item = data.find((i) => i.id === change.id);
          if (!item) return refusal(400, 'invalid_request_error', `No such subscription item: '${change.id}'`, 'items');
          const price = prices.get(change.price as string);
          if (!price) return refusal(400, 'invalid_request_error', `No such price: '${change.price}'`, 'items');
          item.price = price;
        }
        if (params.metadata) s.metadata = { ...(s.metadata as Obj), ...(params.metadata as Obj) };
        subscriptionEvent('customer.subscription.updated', s);
        return { status: 200, body: s };
      }
    }
    if (method === 'POST' && path === '/v1/invoiceitems') {
      if (!customers.has(params.customer as string))
        return refusal(400, 'invalid_request_error', 'No such customer.', 'customer');
      const item = {
        id: newId('ii'),
        object: 'invoiceitem',
        customer: params.customer,
        amount: Number(params.amount),
        currency: params.currency,
        description: params.description ?? null,
        subscription: params.subscription ?? null,
        // The API's shape since 2025-03-31: the subscription under `parent`, and the invoice once one holds it.
        parent: params.subscription
          ? { type: 'subscription_details', subscription_details: { subscription: params.subscription } }
          : null,
        invoice: null,
        metadata: params.metadata ?? {},
        date: now(),
        created: now(),
      };
      invoiceItems.push(item);
      return { status: 200, body: item };
    }
    if (method === 'GET' && path === '/v1/invoiceitems') {
      const gte = Number((params.created as Obj | undefined)?.gte ?? 0);
      return {
        status: 200,
        body: list(path, invoiceItems.filter((i) => i.customer === params.customer && (i.created as number) >= gte).reverse()),
      };
    }
    if (method === 'POST' && path === '/v1/invoices') {
      const inv = {
        id: newId('in'),
        object: 'invoice',
        customer: params.customer,
        auto_advance: params.auto_advance === 'true',
        metadata: params.metadata ?? {},
      };
      invoices.push(inv);
      // `include`: the customer's pending items that no subscription will invoice go on this one.
      if (params.pending_invoice_items_behavior === 'include') {
        for (const item of invoiceItems) {
          if (item.customer === params.customer && item.invoice === null && item.parent === null) item.invoice = inv.id;
        }
      }
      return { status: 200, body: inv };
    }
    return refusal(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      // The client sends GET and DELETE parameters in the query, POST ones in the body.
      const params = req.method === 'GET' || req.method === 'DELETE' ? decodeForm(url.search.slice(1)) : decodeForm(raw);
      const key = req.headers['idempotency-key'] as string | undefined;
      requests.push({ method: req.method ?? '', path: url.pathname, params, idempotencyKey: key });
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
        res.end(JSON.stringify(body));
      };
      // The hosted pages a browser is sent to: checkout (a Pay button that completes it and goes back to
      // success_url) and the portal (a link back to return_url).
      const page = (html: string) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html lang="en"><head><title>Stand-in</title></head><body>${html}</body></html>`);
      };
      const hosted = /^\/(c\/pay|p\/session)\/([\w-]+)$/.exec(url.pathname);
      if (hosted) {
        const [, kind, id] = hosted as unknown as [string, string, string];
        if (kind === 'p/session') {
          const p = portals.get(id);
          return p ? page(`<h1>Billing portal</h1><a href="${p.return_url}">Return</a>`) : answer(404, {});
        }
        const session = sessions.get(id);
        if (!session) return answer(404, {});
        if (req.method === 'POST') {
          void self.completeCheckout(id).then(
            () => {
              res.writeHead(303, { location: session.success_url as string });
              res.end();
            },
            (e: Error) => answer(500, { error: { message: e.message } }),
          );
          return;
        }
        return page(`<h1>Pay for your subscription</h1><form method="post"><button type="submit">Pay</button></form>`);
      }
      if (req.headers.authorization !== `Bearer ${secretKey}`) {
        return answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
      }
      const held = stalls.get(`${req.method} ${url.pathname}`);
      if (held) {
        held.arrived();
        await held.released;
      }
      if (failures.n > 0 && (failures.path === undefined || failures.path === `${req.method} ${url.pathname}`)) {
        failures.n -= 1;
        return answer(failures.status, { error: { type: 'api_error', message: 'Something went wrong on our end.' } });
      }
      const signature = `${req.method} ${url.pathname} ${raw}`;
      if (key && req.method === 'POST') {
        const before = idempotent.get(key);
        if (before) {
          if (before.request !== signature) {
            return answer(400, {
              error: {
                type: 'idempotency_error',
                message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            });
          }
          return answer(before.status, before.body);
        }
      }
      const out = route(req.method ?? 'GET', url.pathname, params);
      if (key && req.method === 'POST') idempotent.set(key, { request: signature, ...out });
      answer(out.status, out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const self: StripeStandIn = {
    url: base,
    secretKey,
    webhookSecret,
    webhookUrl: '',
    customers,
    prices,
    sessions,
    subscriptions,
    invoiceItems,
    invoices,
    requests,
    autoEvents: true,
    declineCard: false,
    failNext(n, status = 500, path) {
      failures = { n, status, ...(path ? { path } : {}) };
    },
    stall(path) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => (arrived = r));
      const released = new Promise<void>((r) => (release = r));
      stalls.set(path, { arrived, released });
      return {
        reached,
        release() {
          stalls.delete(path);
          release();
        },
      };
    },
    async send(type, object, o = {}) {
      const created = o.created ?? now();
      const event = {
        id: o.id ?? newId('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created,
        livemode: false,
        pending_webhooks: 1,
        type,
        data: { object },
      };
      const payload = JSON.stringify(event);
      const t = now();
      const v1 = createHmac('sha256', o.secret ?? webhookSecret)
        .update(`${t}.${payload}`)
        .digest('hex');
      const res = await fetch(self.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` },
        body: payload,
      });
      return { status: res.status, body: (await res.json()) as Obj };
    },
    async completeCheckout(sessionId, status = 'active') {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no checkout session ${sessionId}`);
      const subscription = makeSubscription(s.customer as string, s._price as string, s._subscriptionMetadata as Obj, status);
      s.status = 'complete';
      s.subscription = subscription.id;
      const { _price, _subscriptionMetadata, ...session } = s;
      const done = await self.send('checkout.session.completed', session);
      if (done.status !== 200)
        throw new Error(`checkout.session.completed answered ${done.status}: ${JSON.stringify(done.body)}`);
      const created = await self.send('customer.subscription.created', subscription);
      if (created.status !== 200) throw new Error(`customer.subscription.created answered ${created.status}`);
      return subscription;
    },
    async change(subscriptionId, to) {
      const s = subscriptions.get(subscriptionId);
      if (!s) throw new Error(`no subscription ${subscriptionId}`);
      if (to.lookupKey) {
        const price = [...prices.values()].find((p) => p.lookup_key === to.lookupKey);
        if (!price) throw new Error(`no price with lookup key ${to.lookupKey}`);
        ((s.items as { data: Obj[] }).data[0] as Obj).price = price;
      }
      if (to.status) s.status = to.status;
      const ended = s.status === 'canceled';
      if (ended) s.canceled_at = now();
      if (self.autoEvents) {
        const sent = await self.send(ended ? 'customer.subscription.deleted' : 'customer.subscription.updated', s);
        if (sent.status !== 200)
          throw new Error(`the subscription's event answered ${sent.status}: ${JSON.stringify(sent.body)}`);
      }
      return structuredClone(s);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return self;
}
