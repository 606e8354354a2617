import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../src/analytics/range.ts';
import { sendDue } from '../../src/features/reports/due.ts';
import { lastClosedPeriod } from '../../src/features/reports/periods.ts';
import { callerFor } from '../support/caller.ts';
import { type OwnRedis, startOwnRedis } from '../support/faults.ts';
import { answerConfirmation } from '../support/report-optin.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ownerWithSite } from '../support/sites.ts';

/**
 * "Test it by stopping the real thing": the redis-server holding the hot state is killed while the reports job
 * mails a site's weekly reports. The defect: the second report's period was claimed, then its e-mail budget could
 * not be counted (Redis gone), and the claim was never given back: that week's report to that address was lost,
 * while the log said it would be retried.
 */
describe('fault: Redis disappears while weekly reports are mailed', () => {
  let redis: OwnRedis;
  let t: TestServer;
  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await startTestServer({ hot: 'redis', redis: redis.url });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.remove();
  });

  it('a report not sent because Redis went away stays due, and goes once Redis is back', async () => {
    const made = await ownerWithSite(t, { siteName: 'Fault shop', scopes: ['sites:read', 'sites:write', 'analytics:read'] });
    const siteId = made.site.id;
    const owner = callerFor(t.deps, made);
    const week = lastClosedPeriod('weekly', localToday('UTC'));
    const addresses = ['first@fault-reports.example', 'second@fault-reports.example'];
    for (const address of addresses) {
      const { report } = await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
      await answerConfirmation(t, address);
      await t.deps.orm.em
        .fork()
        .execute('update email_reports set last_period_start = ? where id = ?', [addDays(week.from, -7), report.id]);
    }
    // The first e-mail goes out as Redis dies: the second report has its figures already (one site, one week).
    let killed = false;
    const dying = {
      ...t.deps,
      mailer: {
        ...t.deps.mailer,
        send: async (mail: Parameters<typeof t.deps.mailer.send>[0]) => {
          if (!killed) {
            killed = true;
            await redis.kill();
          }
          return t.deps.mailer.send(mail);
        },
      },
    };
    const now = new Date();
    expect(await sendDue(t.deps.orm.em.fork(), dying, { now, siteIds: [siteId] })).toMatchObject({ sent: 1, failed: 1 });
    await redis.start();
    expect(await sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] })).toMatchObject({ sent: 1, failed: 0 });
    for (const address of addresses) await t.smtp.waitFor(address, /^Weekly report for Fault shop/);
  });
});
