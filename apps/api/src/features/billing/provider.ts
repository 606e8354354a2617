// The payment provider: Stripe through its official client, at STRIPE_API_URL (a local stand-in in tests).
// Without STRIPE_SECRET_KEY there is no provider: billing answers "not configured" (503) and every
// workspace stays on Free. Plans are Stripe prices found by lookup key (`unseen_starter_month`, …), made
// on first use when the account has none, so operators may also make or re-price them in Stripe.
import { createRequire } from 'node:module';
import { type BillingInterval, PAID_PLANS, type PaidPlan, PLAN_PRICES, type Plan } from '@us/shared';
import type Stripe from 'stripe';
import type { Env } from '../../core/env.ts';
import { AppError, notConfigured } from '../../core/errors.ts';

declare module '../../core/deps.ts' {
  interface Deps {
    /** The payment provider (Stripe); null when not configured (billing changes answer 503, all on Free). */
    billing: BillingProvider | null;
  }
}

export interface BillingProvider {
  stripe: Stripe;
  webhookSecret: string;
  prices: PriceCatalogue;
}

export function billingProviderOf(env: Env): BillingProvider | null {
  if (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET) return null;
  const base = new URL(env.STRIPE_API_URL);
  // Loaded only when billing is configured: a node without it never holds the client (several MB of heap).
  const StripeClient = createRequire(import.meta.url)('stripe') as typeof Stripe;
  const stripe = new StripeClient(env.STRIPE_SECRET_KEY, {
    host: base.hostname,
    port: base.port || (base.protocol === 'http:' ? 80 : 443),
    protocol: base.protocol === 'http:' ? 'http' : 'https',
    // The client retries connection failures and 5xx answers itself, with the same idempotency key.
    maxNetworkRetries: 2,
    timeout: 10_000,
    appInfo: { name: 'unseen-stats' },
  });
  return { stripe, webhookSecret: env.STRIPE_WEBHOOK_SECRET, prices: new PriceCatalogue(stripe) };
}

/** The provider, or the "not configured" answer every billing change gives without one. */
export function requireProvider(provider: BillingProvider | null): BillingProvider {
  if (!provider) {
    throw notConfigured(
      'Billing is not configured on this server (no payment provider): every workspace stays on Free. The operator sets STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to offer paid plans',
    );
  }
  return provider;
}

/**
 * Runs a call to the provider; its failures become answers: unreachable or failing (after the client's
 * own retries) is 503, anything else it refused is 503 too (nothing the caller can fix), with the cause
 * kept for the log.
 */
export async function providerCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(503, `The payment provider did not answer ${what}: try again in a minute`, {
      retryAfter: 60,
      cause: err,
    });
  }
}

export const lookupKeyOf = (plan: PaidPlan, interval: BillingInterval) => `unseen_${plan.toLowerCase()}_${interval}`;

/** Plan and interval of a subscription price: its lookup key, else its metadata (prices made by hand). */
export function planOfPrice(price: Pick<Stripe.Price, 'lookup_key' | 'metadata' | 'recurring'>): {
  plan: PaidPlan;
  interval: BillingInterval;
} | null {
  for (const plan of PAID_PLANS) {
    for (const interval of ['month', 'year'] as const) {
      if (price.lookup_key === lookupKeyOf(plan, interval)) return { plan, interval };
    }
  }
  const plan = PAID_PLANS.find((p) => p === price.metadata?.plan);
  const interval: string | undefined = price.recurring?.interval;
  return plan && (interval === 'month' || interval === 'year') ? { plan, interval } : null;
}

export const isPaid = (plan: Plan): plan is PaidPlan => plan !== 'Free';

/**
 * How long a price id is used before its lookup key is asked again: an operator who re-prices a plan in the provider
 * (the lookup key moved to a new price, the old one archived) is followed within this long, without a restart.
 */
export const PRICE_ID_TTL_MS = 10 * 60_000;

/** Price ids by lookup key, looked up (or made) at most once per PRICE_ID_TTL_MS per process. */
export class PriceCatalogue {
  private readonly ids = new Map<string, { id: Promise<string>; until: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly stripe: Stripe,
    opts: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.ttlMs = opts.ttlMs ?? PRICE_ID_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  priceId(plan: PaidPlan, interval: BillingInterval): Promise<string> {
    const key = lookupKeyOf(plan, interval);
    const known = this.ids.get(key);
    if (known && known.until > this.now()) return known.id;
    const id = this.find(plan, interval, key);
    const entry = { id, until: this.now() + this.ttlMs };
    // A failed lookup is asked again next time.
    id.catch(() => {
      if (this.ids.get(key) === entry) this.ids.delete(key);
    });
    this.ids.set(key, entry);
    return id;
  }

  private async find(plan: PaidPlan, interval: BillingInterval, key: string): Promise<string> {
    const found = await this.stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 });
    if (found.data[0]) return found.data[0].id;
    const usd = PLAN_PRICES[plan][interval === 'month' ? 'monthly' : 'yearly'];
    const made = await this.stripe.prices.create(
      {
        currency: 'usd',
        unit_amount: usd * 100,
        recurring: { interval },
        lookup_key: key,
        product_data: { name: `Unseen Stats ${plan}` },
        metadata: { plan, interval },
      },
      // Two nodes making the same price at once make one.
      { idempotencyKey: `price:${key}:${usd}` },
    );
    return made.id;
  }
}
