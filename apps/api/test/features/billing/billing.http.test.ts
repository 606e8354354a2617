// get_billing over HTTP and its projection and overage arithmetic: usage so far against the plan's
// allowances, every plan with its prices, Free never billed, paid plans priced per started million.
import { describe, expect, it } from 'vitest';
import { monthPeriod, overageOf } from '../../../src/features/billing/pricing.ts';
import { monthOf } from '../../../src/features/billing/usage-counters.ts';
import { createToken, createUser, startTestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('billing overview', () => {
  it('answers the plan, the month, usage against every allowance and the plans, for billing:read only', async () => {
    const t = await startTestServer();
    try {
      const { user, workspace } = await createUser(t.deps);
      const token = async (scopes: string[]) =>
        `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: scopes as never })).token}`;
      await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'One' });
      await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Two' });
      await t.deps.orm.em
        .getConnection()
        .execute('insert into usage_months (workspace_id, month, pageviews, requests) values (?, ?::date, ?, ?)', [
          workspace.id,
          monthOf(new Date()),
          84_000,
          1_200_000,
        ]);
      const res = await t.request.get('/v1/billing').set('Authorization', await token(['billing:read']));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        plan: 'Free',
        configured: false,
        usage: {
          humanPageviews: { used: 84_000, allowance: 100_000 },
          serverRequests: { used: 1_200_000, allowance: 1_000_000 },
          sites: { used: 2, allowance: 5, projected: null },
          members: { used: 1, allowance: 2 },
          proxyHostnames: { used: 0, allowance: 1 },
        },
        overage: { billed: false, totalUsd: 0 },
      });
      expect(res.body.period.from).toBe(monthOf(new Date()));
      expect(
        res.body.plans.map((p: { plan: string; monthlyUsd: number; yearlyUsd: number }) => [p.plan, p.monthlyUsd, p.yearlyUsd]),
      ).toEqual([
        ['Free', 0, 0],
        ['Starter', 9, 90],
        ['Growth', 29, 290],
        ['Business', 99, 990],
      ]);
      const refused = await t.request
        .get('/v1/billing')
        .set('Authorization', await token(['analytics:read']))
        .expect(403);
      expect(refused.body.title).toContain('billing:read');
    } finally {
      await t.close();
    }
  });

  it('projects from the rate so far once a tenth of the month is gone, and prices started millions on paid plans', () => {
    expect(monthPeriod(new Date('2026-11-16T00:00:00Z'))).toEqual({ from: '2026-11-01', to: '2026-11-30', elapsed: 0.5 });
    // Half the month gone: 300k pageviews → 600k projected, within Starter's 250k? no: 350k over → 1 started million.
    const starter = overageOf('Starter', { pageviews: 300_000, requests: 4_000_000, proxies: 5 }, 0.5);
    expect(starter.projected).toEqual({ pageviews: 600_000, requests: 8_000_000 });
    expect(starter.overage).toEqual({ billed: true, pageviewsUsd: 10, requestsUsd: 3, proxyHostnamesUsd: 2, totalUsd: 15 });
    // Too early to project: the count so far is what is priced.
    expect(overageOf('Growth', { pageviews: 2_500_001, requests: 0, proxies: 0 }, 0.05)).toEqual({
      projected: { pageviews: null, requests: null },
      overage: { billed: true, pageviewsUsd: 20, requestsUsd: 0, proxyHostnamesUsd: 0, totalUsd: 20 },
    });
    // Free never bills, however far past its allowances.
    expect(overageOf('Free', { pageviews: 9e6, requests: 9e7, proxies: 9 }, 0.5).overage.totalUsd).toBe(0);
    // Business has unlimited sites and members, not proxy hostnames: 51 is one over.
    expect(overageOf('Business', { pageviews: 0, requests: 0, proxies: 51 }, 1).overage.proxyHostnamesUsd).toBe(1);
  });
});
