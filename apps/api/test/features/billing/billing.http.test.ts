// get_billing over HTTP and its projection and overage arithmetic: usage so far against the plan's
// allowances and every plan with its prices (the arithmetic: pricing.test.ts).
import { describe, expect, it } from 'vitest';
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
});
