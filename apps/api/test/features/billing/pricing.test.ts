// Overage arithmetic (docs/product/billing.md, "Overage"): proportional prices in whole cents, rounded up
// once per month and item; a month priced from its plan segments, each allowance prorated by the
// segment's share of the month; Free segments never bill; the overview's projection priced the same way.
import { describe, expect, it } from 'vitest';
import { monthOverageCents, monthPeriod, overageOf, segmentsOverageCents } from '../../../src/features/billing/pricing.ts';

const DAY = 86_400_000;
const NOVEMBER = 30 * DAY;
const nothing = { pageviews: 0, requests: 0, proxies: 0 };

describe('overage prices', () => {
  it('charges in proportion: one pageview over the allowance costs a cent, not 10 USD', () => {
    // Starter: 250,000 pageviews, 5M server requests, 3 proxy hostnames.
    expect(monthOverageCents('Starter', { ...nothing, pageviews: 250_001 })).toBe(1);
    // 10 USD per 1M is 1 cent per 1,000: 1,000 over is a cent, 1,001 over two (rounded up).
    expect(monthOverageCents('Starter', { ...nothing, pageviews: 251_000 })).toBe(1);
    expect(monthOverageCents('Starter', { ...nothing, pageviews: 251_001 })).toBe(2);
    expect(monthOverageCents('Starter', { ...nothing, pageviews: 1_350_000 })).toBe(1_100);
    // 1 USD per 1M requests is 1 cent per 10,000.
    expect(monthOverageCents('Starter', { ...nothing, requests: 5_000_001 })).toBe(1);
    expect(monthOverageCents('Starter', { ...nothing, requests: 5_010_000 })).toBe(1);
    expect(monthOverageCents('Starter', { ...nothing, requests: 5_010_001 })).toBe(2);
    expect(monthOverageCents('Starter', { ...nothing, requests: 6_000_000 })).toBe(100);
    // 1 USD per proxy hostname over, per month.
    expect(monthOverageCents('Starter', { ...nothing, proxies: 5 })).toBe(200);
    // Within every allowance, nothing; Free never, however far past.
    expect(monthOverageCents('Business', { pageviews: 5_000_000, requests: 75_000_000, proxies: 50 })).toBe(0);
    expect(monthOverageCents('Free', { pageviews: 9e6, requests: 9e7, proxies: 9 })).toBe(0);
  });

  it('prices a month from its plan segments, each allowance prorated by the segment’s share of the month', () => {
    // Starter for the first half (125,000 of its 250,000 pageviews), then Business: 200,000 in the Starter
    // half is 75,000 over (75 cents); Business's half is within its share of 5M.
    const split = segmentsOverageCents(
      [
        { plan: 'Starter', ms: 15 * DAY, pageviews: 200_000, requests: 0, proxies: 0 },
        { plan: 'Business', ms: 15 * DAY, pageviews: 2_000_000, requests: 0, proxies: 0 },
      ],
      NOVEMBER,
    );
    expect(split).toEqual({ pageviews: 75, requests: 0, proxyHostnames: 0, total: 75 });

    // A plan change on the last day does not erase the month: 29 days of Starter, then Free for one.
    const lastDay = segmentsOverageCents(
      [
        { plan: 'Starter', ms: 29 * DAY, pageviews: 2_000_000, requests: 0, proxies: 0 },
        { plan: 'Free', ms: DAY, pageviews: 900_000, requests: 9e7, proxies: 9 },
      ],
      NOVEMBER,
    );
    // 250,000 × 29/30 = 241,666.67 allowed: 1,758,333.33 over → 1,758.33 cents, rounded up once.
    expect(lastDay).toEqual({ pageviews: 1_759, requests: 0, proxyHostnames: 0, total: 1_759 });

    // Extras are summed over the paid segments first, then rounded once: two halves 500 pageviews over
    // each are 1,000 over, one cent (not two).
    const halves = segmentsOverageCents(
      [
        { plan: 'Starter', ms: 15 * DAY, pageviews: 125_500, requests: 0, proxies: 0 },
        { plan: 'Growth', ms: 15 * DAY, pageviews: 500_500, requests: 0, proxies: 0 },
      ],
      NOVEMBER,
    );
    expect(halves.pageviews).toBe(1);

    // Proxy hostnames: 1 USD a month each over, for the share of the month held on that plan.
    const proxies = segmentsOverageCents(
      [
        { plan: 'Starter', ms: 15 * DAY, ...nothing, proxies: 5 },
        { plan: 'Growth', ms: 15 * DAY, ...nothing, proxies: 5 },
      ],
      NOVEMBER,
    );
    expect(proxies).toEqual({ pageviews: 0, requests: 0, proxyHostnames: 100, total: 100 });

    // Free segments never bill.
    expect(
      segmentsOverageCents([{ plan: 'Free', ms: NOVEMBER, pageviews: 9e6, requests: 9e7, proxies: 9 }], NOVEMBER).total,
    ).toBe(0);
  });

  it('projects from the rate so far once a tenth of the month is gone, priced the same way', () => {
    expect(monthPeriod(new Date('2026-11-16T00:00:00Z'))).toEqual({ from: '2026-11-01', to: '2026-11-30', elapsed: 0.5 });
    // Half the month gone: 300k pageviews → 600k projected, 350k over Starter's 250k (3.50 USD); 8M
    // requests projected, 3M over (3 USD); 5 proxy hostnames, 2 over (2 USD).
    const starter = overageOf('Starter', { pageviews: 300_000, requests: 4_000_000, proxies: 5 }, 0.5);
    expect(starter.projected).toEqual({ pageviews: 600_000, requests: 8_000_000 });
    expect(starter.overage).toEqual({ billed: true, pageviewsUsd: 3.5, requestsUsd: 3, proxyHostnamesUsd: 2, totalUsd: 8.5 });
    // Too early to project: the count so far is what is priced (1 pageview over Growth's 1M: a cent).
    expect(overageOf('Growth', { pageviews: 1_000_001, requests: 0, proxies: 0 }, 0.05)).toEqual({
      projected: { pageviews: null, requests: null },
      overage: { billed: true, pageviewsUsd: 0.01, requestsUsd: 0, proxyHostnamesUsd: 0, totalUsd: 0.01 },
    });
    expect(overageOf('Free', { pageviews: 9e6, requests: 9e7, proxies: 9 }, 0.5).overage.totalUsd).toBe(0);
    // Business has unlimited sites and members, not proxy hostnames: 51 is one over.
    expect(overageOf('Business', { pageviews: 0, requests: 0, proxies: 51 }, 1).overage.proxyHostnamesUsd).toBe(1);

    // Earlier in the month on Starter (a closed segment, half the month): this month's projection adds
    // its overage to the running segment's, and a Free workspace still shows what its paid part costs.
    const afterCancel = overageOf('Free', { pageviews: 400_000, requests: 0, proxies: 0 }, 0.75, {
      monthMs: NOVEMBER,
      runningMs: 15 * DAY,
      closed: [{ plan: 'Starter', ms: 15 * DAY, pageviews: 300_000, requests: 0, proxies: 0 }],
    });
    expect(afterCancel.overage).toEqual({
      billed: true,
      pageviewsUsd: 1.75,
      requestsUsd: 0,
      proxyHostnamesUsd: 0,
      totalUsd: 1.75,
    });
  });
});
