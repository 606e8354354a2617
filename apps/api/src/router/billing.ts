import { BillingOutput, zEmpty } from '@us/shared';
import { billingOverview } from '../services/billing/overview.ts';
import { router } from '../trpc/init.ts';
import { actorProcedure } from '../trpc/procedures.ts';

export const billingRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'billing:read',
      noRestricted: true,
      mcp: {
        tool: 'get_billing',
        description:
          "The workspace's plan and this UTC month: usage so far against each allowance (human pageviews, server requests, sites, members with pending invites, proxy hostnames), the month's projection from the rate so far (from a tenth of the month on), and the overage that projection would cost on a paid plan (10 USD per started extra 1M pageviews, 1 USD per 1M server requests, 1 USD per extra proxy hostname; Free never bills). Also every plan with its prices and allowances, and whether a payment provider is set up here.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/billing',
        summary: 'Plan, month, usage against allowances, projected overage, and the plans',
        tags: ['Billing'],
      },
    })
    .input(zEmpty.optional())
    .output(BillingOutput)
    .query(({ ctx }) => billingOverview(ctx.em, ctx.actor)),
});
