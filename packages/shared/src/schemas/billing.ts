// The billing overview (get_billing, GET /v1/billing): plan, the month, allowances, usage so far and
// what the month is heading for, with the overage it would cost (spec §8 plan table and overage).
import { z } from 'zod';
import { PLANS } from '../plans.ts';

/** Spec §8 prices (USD) and overage rates. */
export const PLAN_PRICES = {
  Free: { monthly: 0, yearly: 0 },
  Starter: { monthly: 9, yearly: 90 },
  Growth: { monthly: 29, yearly: 290 },
  Business: { monthly: 99, yearly: 990 },
} as const;

export const OVERAGE_USD = {
  /** Per extra 1M human pageviews. */
  perMillionPageviews: 10,
  /** Per extra 1M server requests. */
  perMillionRequests: 1,
  /** Per extra proxy-mode hostname per month. */
  perProxyHostname: 1,
} as const;

const Measure = z.object({
  used: z.number().int(),
  allowance: z.number().int().nullable().describe('null: unlimited'),
  /** Linear projection to the month's end from the share of the month gone (counters only). */
  projected: z.number().int().nullable(),
});

export const BillingOutput = z.object({
  plan: z.enum(PLANS),
  status: z.string(),
  configured: z.boolean().describe('false: no payment provider on this server; every workspace stays on Free'),
  period: z.object({ from: z.string(), to: z.string(), elapsed: z.number().describe('Share of the month gone, 0–1') }),
  usage: z.object({
    humanPageviews: Measure,
    serverRequests: Measure,
    sites: Measure,
    members: Measure,
    proxyHostnames: Measure,
  }),
  overage: z.object({
    billed: z
      .boolean()
      .describe('Free never bills: past an allowance it sends notices (and pauses server-request logging at 150 %)'),
    pageviewsUsd: z.number(),
    requestsUsd: z.number(),
    proxyHostnamesUsd: z.number(),
    totalUsd: z.number().describe('Projected overage at the month’s end, billed then on paid plans'),
  }),
  plans: z.array(
    z.object({
      plan: z.enum(PLANS),
      monthlyUsd: z.number(),
      yearlyUsd: z.number(),
      humanPageviews: z.number().int(),
      serverRequests: z.number().int(),
      sites: z.number().int().nullable(),
      members: z.number().int().nullable(),
      proxyHostnames: z.number().int().nullable(),
    }),
  ),
});
export type BillingOutput = z.infer<typeof BillingOutput>;
