import { BillingOutput, CheckoutInput, CheckoutOutput, PlanChangeInput, PortalOutput, zEmpty } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { openPortal, startCheckout } from './checkout.ts';
import { billingOverview } from './overview.ts';
import { changePlan } from './plan-change.ts';

const tags = ['Billing'];
/** Every billing change: the owner's scope, the whole workspace, and a call to the payment provider. */
const change = { auth: 'any', scope: 'billing:write', noRestricted: true, external: true } as const;
const notConfigured = '503 when no payment provider is set up on this server (everyone stays on Free) or it cannot be reached.';

export const billingRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'billing:read',
      noRestricted: true,
      mcp: {
        tool: 'get_billing',
        description:
          "The workspace's plan and this UTC month: usage so far against each allowance (human pageviews, server requests, sites, members with pending invites, proxy hostnames), the month's projection from the rate so far (from a tenth of the month on), and the overage that projection would cost for the parts of the month on a paid plan (in proportion: 10 USD per 1M pageviews is 1 cent per 1,000; 1 USD per 1M server requests; 1 USD per extra proxy hostname a month; allowances prorated when the plan changed within the month; rounded up to the cent; Free never bills). Also the subscription's state (past_due: when the plan ends unless the card is updated), the last closed months with their overage, every plan with its prices and allowances, and whether a payment provider is set up here.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/billing',
        summary: 'Plan, month, usage against allowances, projected overage, and the plans',
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(BillingOutput)
    .query(({ ctx }) => billingOverview(ctx.em, ctx.actor, { configured: ctx.deps.billing !== null })),

  plan: actorProcedure
    .meta({
      ...change,
      idempotent: true,
      mcp: {
        tool: 'plan_billing',
        description:
          'Change the plan of a workspace that already pays (or go back to Free, which ends the subscription at once with the unused time credited). The new limits apply at once; an upgrade (or monthly to yearly) is invoiced at once, prorated, a smaller plan credited on the next invoice; this month’s overage is priced with each plan for the part of the month it held. A move to a smaller plan is refused (409) while the workspace uses more than it allows (sites, members with invitations, proxy hostnames, this month’s pageviews or server requests): the answer says what to remove. A first paid plan needs checkout_billing (402 here).',
      },
      openapi: {
        method: 'POST',
        path: '/v1/billing/plan',
        summary: 'Change plan (limits at once; downgrades only within the smaller plan’s limits)',
        description: `402 when the workspace has no paid subscription yet (use checkout), 409 when it uses more than the smaller plan allows. ${notConfigured}`,
        tags,
      },
    })
    .input(PlanChangeInput)
    .output(BillingOutput)
    .mutation(({ ctx, input }) => changePlan(ctx.deps.billing, ctx.em, ctx.actor, input)),

  checkout: actorProcedure
    .meta({
      ...change,
      idempotent: true,
      mcp: {
        tool: 'checkout_billing',
        description:
          'A payment page (the provider’s checkout, valid about a day) for a first paid plan, monthly or yearly. Open the url in a browser; the plan changes when the payment goes through. 409 when the workspace already pays: use plan_billing to change plan.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/billing/checkout',
        summary: 'Start a checkout for a paid plan (answers the payment page)',
        description: `409 when the workspace already has a paid subscription. ${notConfigured}`,
        tags,
      },
    })
    .input(CheckoutInput)
    .output(CheckoutOutput)
    .mutation(({ ctx, input }) => startCheckout(ctx.deps.billing, ctx.em, ctx.actor, input, ctx.deps.urls.app)),

  portal: actorProcedure
    .meta({
      ...change,
      readOnly: true,
      mcp: {
        tool: 'portal_billing',
        description:
          'A link to the payment provider’s portal for this workspace: invoices (overage included), receipts, payment method, cancelling. 409 before the first checkout.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/billing/portal',
        summary: 'Open the payment portal (invoices, payment method)',
        description: `409 when the workspace has never checked out. ${notConfigured}`,
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(PortalOutput)
    .mutation(({ ctx }) => openPortal(ctx.deps.billing, ctx.em, ctx.actor, ctx.deps.urls.app)),
});
