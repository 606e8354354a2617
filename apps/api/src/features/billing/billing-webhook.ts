// POST /v1/billing/webhook: the payment provider's events (features/billing/events.ts). The signature
// over the raw body is the credential (Stripe-Signature, checked with STRIPE_WEBHOOK_SECRET by the
// official client, five minutes' tolerance); requests are counted per address before anything is read.
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

export function billingWebhookHandler(deps: Deps) {
  return async (ctx: Context) => {
    try {
      if (ctx.method !== 'POST') throw new AppError(404, 'Payment provider events are POSTed here');
      const provider = requireProvider(deps.billing);
      if (await overBudget(deps.hot, 'billingWebhook', ctx.ip)) {
        throw new AppError(429, 'Too many webhook requests from this address: wait a minute', { retryAfter: 60 });
      }
      const signature = ctx.get('stripe-signature');
      if (!signature)
        throw badRequest('Stripe-Signature', 'Send the Stripe-Signature header the payment provider signs each event with');
      const raw = await readBody(ctx.req, WEBHOOK_BODY_LIMIT);
      let event: ReturnType<typeof provider.stripe.webhooks.constructEvent>;
      try {
        event = provider.stripe.webhooks.constructEvent(raw, signature, provider.webhookSecret);
      } catch {
        throw badRequest(
          'Stripe-Signature',
          'The signature does not match this body and the webhook signing secret (or is older than five minutes): check STRIPE_WEBHOOK_SECRET',
        );
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
