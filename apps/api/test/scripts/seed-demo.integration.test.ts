// `npm run seed:demo` fills the usage counters too (issue 37): the billing page's usage of the demo
// workspace equals the human pageviews and server requests the seed stored, month by month, and a second
// run replaces them rather than adding to them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, seedDemo } from '../../scripts/seed/demo.ts';
import { generateTraffic } from '../../scripts/seed/generate.ts';
import { monthOf } from '../../src/features/billing/usage-counters.ts';
import { callerFor } from '../support/caller.ts';
import { createToken, GOOD_PASSWORD, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';

type Counted = { month: string; pageviews: number; requests: number };

describe('seed:demo and the usage counters', () => {
  let t: TestServer;
  const email = uniqueEmail('demo');
  // 40 days: the current month and at least one before it, all kept as raw rows (the last 90 days are).
  const seed = () => seedDemo(t.deps.orm, { email, password: GOOD_PASSWORD, days: 40, pageviews: 4_000, jobs: 2 });

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** What the seed stored, per UTC month: human pageviews and every server request (what usage counts). */
  async function stored(siteId: string): Promise<Counted[]> {
    return t.deps.orm.em.fork().execute<Counted[]>(
      `select month, sum(pageviews)::int as pageviews, sum(requests)::int as requests from (
         select to_char(date_trunc('month', at at time zone 'UTC'), 'YYYY-MM-DD') as month, count(*) as pageviews, 0 as requests
           from pageviews where site_id = ? and lane = 'human' group by 1
         union all
         select to_char(date_trunc('month', at at time zone 'UTC'), 'YYYY-MM-DD'), 0, count(*)
           from requests where site_id = ? group by 1
       ) x group by 1 order by 1`,
      [siteId, siteId],
    );
  }

  /**
   * The workspace's usage counters, per month. A month counted back to nothing is none (a run just after a month
   * began leaves the new month's row at 0 when the traffic it replaces had some of it).
   */
  async function counted(workspaceId: string): Promise<Counted[]> {
    return t.deps.orm.em.fork().execute<Counted[]>(
      `select to_char(month, 'YYYY-MM-DD') as month, pageviews::int as pageviews, requests::int as requests
         from usage_months where workspace_id = ? and (pageviews <> 0 or requests <> 0) order by month`,
      [workspaceId],
    );
  }

  /** get_billing's usage, as the billing page shows it. */
  async function billingUsage(demo: Demo) {
    const { token } = await createToken(t.deps, {
      userId: demo.account.user.id,
      workspaceId: demo.account.workspace.id,
      scopes: ['billing:read'],
    });
    const billing = await callerFor(t.deps, { token }).billing.get();
    return { pageviews: billing.usage.humanPageviews.used, requests: billing.usage.serverRequests.used };
  }

  it("counts the seeded human pageviews and server requests in each month's usage, as get_billing shows", async () => {
    const demo = await seed();
    const rows = await stored(demo.site.id);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.reduce((n, r) => n + r.pageviews, 0)).toBeGreaterThan(1_000);
    expect(await counted(demo.account.workspace.id)).toEqual(rows);

    const thisMonth = rows.find((r) => r.month === monthOf(new Date())) ?? { pageviews: 0, requests: 0 };
    expect(await billingUsage(demo)).toEqual({ pageviews: thisMonth.pageviews, requests: thisMonth.requests });
  });

  it('a second run replaces the traffic and its usage instead of adding to it', async () => {
    const demo = await seed();
    expect(demo.created).toBe(false);
    const rows = await stored(demo.site.id);
    expect(await counted(demo.account.workspace.id)).toEqual(rows);
    const thisMonth = rows.find((r) => r.month === monthOf(new Date())) ?? { pageviews: 0, requests: 0 };
    expect(await billingUsage(demo)).toEqual({ pageviews: thisMonth.pageviews, requests: thisMonth.requests });
  });

  it('never stores a visitor code past its UTC day, as intake never does (kept days add visitors up by day)', async () => {
    const demo = await seed();
    // An event a minute after a pageview at 23:59 UTC is the next day's: intake gives it that day's code. A site in
    // Auckland (UTC+13) has its busy early afternoon at UTC midnight, so such events are many there.
    await generateTraffic(t.deps.orm, {
      siteId: demo.site.id,
      timezone: 'Pacific/Auckland',
      days: 3,
      pageviews: 60_000,
      jobs: 2,
      seed: 'utc-midnight',
    });
    const outliving = await t.deps.orm.em.fork().execute<{ visitor: string; days: string }[]>(
      `select visitor, string_agg(distinct day::text, ' ') as days from (
         select visitor, day from pageviews where site_id = ?
         union all
         select visitor, day from events where site_id = ?
       ) x group by visitor having count(distinct day) > 1 limit 5`,
      [demo.site.id, demo.site.id],
    );
    expect(outliving).toEqual([]);
  });
});
