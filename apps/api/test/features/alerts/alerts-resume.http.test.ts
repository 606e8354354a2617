import type { Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAlerts } from '../../../src/features/alerts/alerts-job.ts';
import { checkRule, rulesSql } from '../../../src/features/alerts/check.ts';
import type { RuleRow } from '../../../src/features/alerts/rule-columns.ts';
import { siteWithYesterday, webhookReceiver } from '../../support/alerts.ts';
import { callerFor } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { createToken, createUser, joinAs, startTestServer, type TestServer } from '../../support/server.ts';

/**
 * What a stopped run (a deploy's SIGTERM) claimed and did not send is sent at the next run, but not for a rule
 * paused since, or whose maker left the workspace since: the job looks at neither, so neither may still tell.
 */
describe('deliveries a stopped run left', () => {
  let t: TestServer;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  let owner: ReturnType<typeof callerFor>;
  let workspaceId: string;
  const received: string[] = [];

  beforeAll(async () => {
    receiver = await webhookReceiver((req, res) => {
      received.push(String(req.url));
      res.statusCode = 204;
      res.end();
    });
    t = await startTestServer({ env: { ALERT_WEBHOOKS_TO_LOOPBACK: 'true' } });
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    owner = await callerOf(user.id);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function callerOf(userId: string) {
    const scopes: Scope[] = ['sites:read', 'sites:write', 'analytics:read'];
    return callerFor(t.deps, await createToken(t.deps, { userId, workspaceId, scopes }));
  }

  /** A spiking site with a rule by `maker` to a confirmed address and a webhook. */
  async function spikingRule(name: string, maker: ReturnType<typeof callerFor>, address: string) {
    const { siteId } = await siteWithYesterday(t, workspaceId, { name, usual: 20, yesterday: 50 });
    const { alert } = await maker.alerts.create({
      id: siteId,
      kind: 'traffic_spike',
      thresholdPercent: 100,
      webhookUrl: `${receiver.base}/${siteId}`,
      recipients: [address],
    });
    await answerConfirmation(t, address, 'yes', 'alerts');
    return { siteId, alert };
  }

  /** A spiking site's rule by `maker`, to a confirmed address and a webhook, whose delivery a run claimed and never sent. */
  async function stalledDelivery(name: string, maker: ReturnType<typeof callerFor>, address: string) {
    const { siteId, alert } = await spikingRule(name, maker, address);
    const em = t.deps.orm.em.fork();
    const [rule] = await em.execute<RuleRow[]>(rulesSql([siteId]), [siteId]);
    const stalled = { ...t.deps, mailer: { send: () => new Promise<never>(() => {}) } } as never;
    void checkRule(stalled, t.deps.orm.em.fork(), rule as RuleRow, new Date(), undefined);
    await vi.waitFor(async () => expect(await deliveryOf(alert.id)).toMatchObject({ sent_at: null, webhook: 'pending' }));
    return { siteId, alertId: alert.id };
  }

  const deliveryOf = async (alertId: string) =>
    (
      await t.deps.orm.em
        .fork()
        .execute<{ sent_at: string | null; webhook: string; mails: number }[]>(
          'select sent_at, webhook, mails from alert_deliveries where alert_id = ?',
          [alertId],
        )
    )[0];
  const alertMails = (address: string) => t.smtp.mails.filter((m) => m.to.includes(address) && /^Traffic spike/.test(m.subject));

  it('sends nothing for a rule paused since, and closes the delivery so it is not taken up again', async () => {
    const { siteId, alertId } = await stalledDelivery('Paused since', owner, 'paused@example.com');
    await owner.alerts.update({ id: siteId, alert: alertId, enabled: false });
    expect(await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true })).toEqual({ ran: true, fired: 0, failed: 0 });
    expect(await deliveryOf(alertId)).toEqual({ sent_at: expect.any(String), webhook: 'failed', mails: 0 });
    // Enabled again: the old period still goes to no one.
    await owner.alerts.update({ id: siteId, alert: alertId, enabled: true });
    await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true });
    expect(received.filter((u) => u.includes(siteId))).toEqual([]);
    expect(alertMails('paused@example.com')).toEqual([]);
  });

  it('sends nothing for a rule whose maker left the workspace since', async () => {
    const leaver = await joinAs(t, workspaceId, 'member');
    const { siteId, alertId } = await stalledDelivery('Maker left', await callerOf(leaver.user.id), 'left@example.com');
    await t.deps.orm.em
      .fork()
      .execute('delete from memberships where user_id = ? and workspace_id = ?', [leaver.user.id, workspaceId]);
    expect(await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true })).toEqual({ ran: true, fired: 0, failed: 0 });
    expect(await deliveryOf(alertId)).toEqual({ sent_at: expect.any(String), webhook: 'failed', mails: 0 });
    expect(received.filter((u) => u.includes(siteId))).toEqual([]);
    expect(alertMails('left@example.com')).toEqual([]);
  });

  // The defect: a mail server refusing for one run recorded the delivery's e-mails as held, sent: never tried again.
  it('tries e-mails the mail server refused again at the next run, without sending the webhook twice', async () => {
    const address = 'refused-once@example.com';
    const { siteId, alert } = await spikingRule('Mail server down', owner, address);
    t.smtp.refused.add(address);
    try {
      expect(await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true })).toMatchObject({ fired: 1 });
    } finally {
      t.smtp.refused.delete(address);
    }
    expect(await deliveryOf(alert.id)).toMatchObject({ sent_at: null, mails: 0 });
    await vi.waitFor(() => expect(received.filter((u) => u.includes(siteId))).toHaveLength(1));
    await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true });
    expect(alertMails(address)).toHaveLength(1);
    expect(await deliveryOf(alert.id)).toMatchObject({ sent_at: expect.any(String), mails: 1, webhook: 'sent' });
    expect(received.filter((u) => u.includes(siteId))).toHaveLength(1);
  });
});
