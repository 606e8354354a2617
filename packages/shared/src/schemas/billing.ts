// The billing overview (get_billing, GET /v1/billing): plan, the month, allowances, usage so far and
// what the month is heading for, with the overage it would cost (spec §8 plan table and overage).
import { z } from 'zod';
import { PLANS } from '../plans.ts';

/** Paid plans: the ones a checkout can choose. */
export const PAID_PLANS = ['Starter', 'Growth', 'Business'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];
export const BILLING_INTERVALS = ['month', 'year'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

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
      .describe(
        'false: Free all month, which never bills (past an allowance it sends notices, and pauses server-request logging at 150 %). True on a paid plan, or on Free after a paid part of this month',
      ),
    pageviewsUsd: z.number(),
    requestsUsd: z.number(),
    proxyHostnamesUsd: z.number(),
    totalUsd: z
      .number()
      .describe(
        'Projected overage at the month’s end, billed then for the parts of the month on a paid plan (10 USD per 1M pageviews is 1 cent per 1,000; rounded up to the cent)',
      ),
  }),
  subscription: z
    .object({
      status: z.string().describe('The payment provider’s word: active, trialing, past_due, canceled, …'),
      interval: z.enum(BILLING_INTERVALS).nullable(),
      periodEnd: z.string().nullable().describe('When the paid period ends (ISO time), when the provider says'),
      graceEndsAt: z
        .string()
        .nullable()
        .describe(
          'past_due only: the last payment failed, and the plan ends then (ISO time, 14 days after the first failure) unless the payment method is updated; otherwise null',
        ),
    })
    .nullable()
    .describe('null: never checked out'),
  months: z
    .array(
      z.object({
        month: z.string().describe('First day of the closed UTC month'),
        plan: z.enum(PLANS),
        overageUsd: z.number(),
        reported: z.boolean().describe('The overage is on an invoice at the payment provider (always true when 0)'),
      }),
    )
    .describe('The last twelve closed months, newest first: the plan each ended on and its overage'),
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

/** plan_billing, POST /v1/billing/plan: move a subscribed workspace to another plan (or back to Free). */
export const PlanChangeInput = z
  .object({
    plan: z.enum(PLANS),
    interval: z
      .enum(BILLING_INTERVALS)
      .optional()
      .describe('month or year; unset keeps the subscription’s own (month for a new one)'),
  })
  .strict();
export type PlanChangeInput = z.infer<typeof PlanChangeInput>;

/** checkout_billing, POST /v1/billing/checkout: a payment page for a first paid plan. */
export const CheckoutInput = z
  .object({
    plan: z.enum(PAID_PLANS),
    interval: z.enum(BILLING_INTERVALS).default('month'),
  })
  .strict();
export type CheckoutInput = z.infer<typeof CheckoutInput>;

export const CheckoutOutput = z.object({
  url: z.string().describe('The payment provider’s checkout page: open it in a browser'),
  expiresAt: z.string().nullable().describe('When the page stops working (ISO time)'),
});
export type CheckoutOutput = z.infer<typeof CheckoutOutput>;

export const PortalOutput = z.object({
  url: z.string().describe('The payment provider’s portal: invoices, payment method, cancelling'),
});
export type PortalOutput = z.infer<typeof PortalOutput>;
