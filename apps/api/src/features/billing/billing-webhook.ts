// POST /v1/billing/webhook: the payment provider's events (features/billing/events.ts). The signature
// over the raw body is the credential (Stripe-Signature, checked with STRIPE_WEBHOOK_SECRET by the
// official client, five minutes' tolerance), and it is checked first: the body is bounded, so checking
// costs little. Only requests that fail it count against the per-address budget (429 past it), so a
// stranger sending from the provider's own address cannot spend what the provider's signed events need,
// and a correctly signed event is never refused for a budget.
import type { Context } from 'koa';
import type { Deps } from '../../core/deps.ts';
import { logFailure, toAppError } from '../../core/error-map.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { overBudget } from '../../core/hot/address-budget.ts';
import { readBody } from '../../core/http/body.ts';
import { sendProblem } from '../../core/http/problem-response.ts';
import { applyEvent } from './events.ts';
import { requireProvider } from './provider.ts';

/** The largest event body read (Stripe's events are a few KB; a subscription with many items, tens). */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;

const unsigned = () =>
  badRequest(
    'Stripe-Signature',
    'The signature does not match this body and the webhook signing secret (or is older than five minutes): check STRIPE_WEBHOOK_SECRET',
  );

export function billingWebhookHandler(deps: Deps) {
  return async (ctx: Context) => {
    try {
      if (ctx.method !== 'POST') throw new AppError(404, 'Payment provider events are POSTed here');
      const provider = requireProvider(deps.billing);
      let event: ReturnType<typeof provider.stripe.webhooks.constructEvent>;
      try {
        const signature = ctx.get('stripe-signature');
        if (!signature) {
          throw badRequest('Stripe-Signature', 'Send the Stripe-Signature header the payment provider signs each event with');
        }
        const raw = await readBody(ctx.req, WEBHOOK_BODY_LIMIT);
        try {
          event = provider.stripe.webhooks.constructEvent(raw, signature, provider.webhookSecret);
        } catch {
          throw unsigned();
        }
      } catch (refused) {
        // Unsigned, mis-signed or too big: counted against the address; past its budget, told to wait.
        if (await overBudget(deps.hot, 'billingWebhook', ctx.ip)) {
          throw new AppError(429, 'Too many unsigned webhook requests from this address: wait a minute', { retryAfter: 60 });
        }
        throw refused;
      }
      const outcome = await applyEvent(deps.orm, provider, event, deps.logger);
      ctx.status = 200;
      ctx.body = { received: true, outcome };
    } catch (err) {
      const app = toAppError(err);
      logFailure(deps.logger, `${ctx.method} /v1/billing/webhook`, app);
      sendProblem(ctx, app);
    }
  };
}
