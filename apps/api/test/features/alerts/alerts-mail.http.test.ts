import { eventRow, insertRows, pageviewRows } from '@us/db';
import { ALERT_LIMITS } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { MAIL_BUDGET, spendReportMail } from '../../../src/core/mail/budget.ts';
import { runAlerts } from '../../../src/features/alerts/alerts-job.ts';
import { lastClosedPeriod } from '../../../src/features/alerts/periods.ts';
import { runEmailReports } from '../../../src/features/reports/reports-job.ts';
import { alertsOwner, siteWithYesterday, weeksBefore } from '../../support/alerts.ts';
import { callerFor } from '../../support/caller.ts';
import { collectSite, postReport } from '../../support/collect.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { linkToken } from '../../support/smtp.ts';

/**
 * Alerts looked at by the job, told by e-mail into a real SMTP server: spikes and drops of visitors against
 * the same weekday (or hour) of the previous 4 weeks, goal conversions that fall, a new site's first
 * pageview; once per rule and period, never to an address that unsubscribed, within the workspace's budget.
 */

// Tokyo keeps no daylight saving time: its days and hours are the same offset all year.
const ZONE = 'Asia/Tokyo';
const NOW = new Date();
const YESTERDAY = addDays(localToday(ZONE, NOW), -1);
const WEEKS_BEFORE = weeksBefore(YESTERDAY);
const at = (day: string, hour: number) => new Date(`${day}T${String(hour).padStart(2, '0')}:10:00+09:00`);

describe('alerts by e-mail', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let workspaceId: string;
  const siteIds: string[] = [];

  /** A Tokyo site with `usual` visitors on each of the 4 weekdays before and `yesterday` yesterday. */
  async function siteWith(name: string, usual: number, yesterday: number, settings = {}) {
    const { siteId } = await siteWithYesterday(t, workspaceId, {
      name,
      usual,
      yesterday,
      settings,
      timezone: ZONE,
      offset: '+09:00',
    });
    siteIds.push(siteId);
    return siteId;
  }

  const run = (sites = siteIds) => runAlerts(t.deps.orm, t.deps, { now: NOW, siteIds: sites, wait: true });
  const mailsTo = (address: string) => t.smtp.mails.filter((m) => m.to.includes(address) && !/^Confirm/.test(m.subject));

  /** A rule on `siteId` to `address`, which confirms it (once per workspace). */
  async function ruleTo(siteId: string, address: string, rule: Omit<Parameters<typeof owner.alerts.create>[0], 'id'>) {
    const { alert } = await owner.alerts.create({ id: siteId, recipients: [address], ...rule });
    if (alert.recipients.some((r) => r.confirmation !== 'confirmed')) await answerConfirmation(t, address, 'yes', 'alerts');
    return alert;
  }

  beforeAll(async () => {
    t = await startTestServer();
    ({ owner, workspaceId } = await alertsOwner(t));
  });
  afterAll(() => t.close());

  it('tells of a spike once: one e-mail for the day, none again in the same period, even from a second look', async () => {
    const siteId = await siteWith('Spiky shop', 30, 80);
    const alert = await ruleTo(siteId, 'spike@example.com', { kind: 'traffic_spike', thresholdPercent: 50 });
    expect(await run([siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('spike@example.com', /^Traffic spike on Spiky shop$/);
    expect(mail.text).toContain('80 visitors in');
    expect(mail.text).toContain('Usual figure: 30, the average of the same time over the previous 4 weeks (+167%).');

    expect(await run([siteId])).toEqual({ ran: true, fired: 0, failed: 0 });
    // Another node that had not seen the period looked at yet still finds the period's delivery taken.
    await t.deps.orm.em.fork().execute('update alerts set last_period = null where id = ?', [alert.id]);
    expect(await run([siteId])).toEqual({ ran: true, fired: 0, failed: 0 });
    expect(mailsTo('spike@example.com')).toHaveLength(1);

    const { deliveries } = await owner.alerts.deliveries({ id: siteId, alert: alert.id });
    expect(deliveries).toMatchObject([
      { period: YESTERDAY, current: 80, baseline: 30, changePercent: 167, mails: 1, webhook: 'none' },
    ]);
  });

  it('tells of a drop, and of a spike in the last complete hour', async () => {
    const dropping = await siteWith('Quiet shop', 40, 12);
    await ruleTo(dropping, 'drop@example.com', { kind: 'traffic_drop', thresholdPercent: 50 });
    const hour = lastClosedPeriod('hour', ZONE, NOW);
    const { siteId: hourly } = await createSite(t.deps.orm.em.fork(), {
      workspace: workspaceId,
      name: 'Hourly shop',
      timezone: ZONE,
    });
    siteIds.push(hourly);
    const hourAt = (key: string) => new Date(`${key}:30+09:00`);
    await insertRows(t.deps.orm, 'pageviews', [
      ...hour.baselineKeys.flatMap((k) => pageviewRows(hourly, hourAt(k), 25)),
      ...pageviewRows(hourly, hourAt(hour.key), 60),
    ]);
    await ruleTo(hourly, 'hourly@example.com', { kind: 'traffic_spike', thresholdPercent: 100, window: 'hour' });
    expect(await run([dropping, hourly])).toEqual({ ran: true, fired: 2, failed: 0 });
    const drop = await t.smtp.waitFor('drop@example.com', /^Traffic drop on Quiet shop$/);
    expect(drop.text).toContain('12 visitors in');
    expect(drop.text).toContain('(-70%)');
    const spike = await t.smtp.waitFor('hourly@example.com', /^Traffic spike on Hourly shop$/);
    expect(spike.text).toContain(`${hour.key.slice(11, 16)}`);
    expect(spike.text).toContain('(+140%)');
  });

  it(`says nothing of a small site: its usual figure is under ${ALERT_LIMITS.minBaseline} visitors`, async () => {
    const tiny = await siteWith('Tiny blog', 2, 9);
    await ruleTo(tiny, 'tiny@example.com', { kind: 'traffic_spike', thresholdPercent: 50 });
    expect(await run([tiny])).toEqual({ ran: true, fired: 0, failed: 0 });
    expect(mailsTo('tiny@example.com')).toEqual([]);
  });

  it('tells when a goal’s conversions fall', async () => {
    const goal = { id: 'signup', name: 'Signup', type: 'event' as const, match: 'signup' };
    const siteId = await siteWith('Signups', 50, 50, { goals: [goal] });
    const signups = (day: string, n: number) =>
      Array.from({ length: n }, () => eventRow(siteId, at(day, 11), { name: 'signup' }));
    await insertRows(t.deps.orm, 'events', [...WEEKS_BEFORE.flatMap((d) => signups(d, 24)), ...signups(YESTERDAY, 6)]);
    await ruleTo(siteId, 'goals@example.com', { kind: 'goal_drop', goal: 'Signup', thresholdPercent: 50 });
    expect(await run([siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('goals@example.com', /^Goal conversions fell on Signups$/);
    expect(mail.text).toContain('6 visitors who completed "Signup" in');
    expect(mail.text).toContain('Usual figure: 24');
  });

  it('tells of a new site’s first pageview once, when it arrives', async () => {
    const site = await collectSite(t, 'first-alert.example', ['analytics:read']);
    const created = await t.request
      .post(`/v1/sites/${site.siteId}/alerts`)
      .set('Authorization', site.auth)
      .send({ kind: 'first_pageview', recipients: ['first@example.com'] })
      .expect(201);
    expect(created.body.alert).toMatchObject({ kind: 'first_pageview', thresholdPercent: null, enabled: true });
    await answerConfirmation(t, 'first@example.com', 'yes', 'alerts');
    expect(await run([site.siteId])).toEqual({ ran: true, fired: 0, failed: 0 });
    // While the site has no rows, the rule asks no stats question (it asked one every five minutes, forever):
    // with every stats slot of the workspace taken, the look still succeeds.
    const workspaceId = (
      await t.deps.orm.em.fork().execute<{ w: string }[]>('select workspace_id::text as w from sites where id = ?', [site.siteId])
    )[0]?.w;
    const key = `stats-running:${workspaceId}`;
    const limit = t.deps.env.STATS_CONCURRENT_PER_WORKSPACE;
    const holders = Array.from({ length: limit }, (_, i) => `question-${i}`);
    for (const h of holders) expect(await t.deps.hot.acquireSlot(key, h, limit, 60)).toBe(true);
    try {
      expect(await run([site.siteId])).toEqual({ ran: true, fired: 0, failed: 0 });
    } finally {
      for (const h of holders) await t.deps.hot.releaseSlot(key, h);
    }

    await postReport(t, site).expect(202);
    await t.deps.ingest.flushNow();
    expect(await run([site.siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('first@example.com', /^First pageview on first-alert\.example$/);
    expect(mail.text).toContain('1 pageview so far');
    await postReport(t, site).expect(202);
    await t.deps.ingest.flushNow();
    expect(await run([site.siteId])).toEqual({ ran: true, fired: 0, failed: 0 });
    expect(mailsTo('first@example.com')).toHaveLength(1);
  });

  it('waits for a pageview after the rule was made: the same day’s earlier pageviews do not fire it', async () => {
    const site = await collectSite(t, 'first-later.example', ['analytics:read']);
    // Recorded a second before the rule, on its day (the site's time zone is UTC's).
    await insertRows(t.deps.orm, 'pageviews', pageviewRows(site.siteId, new Date(Date.now() - 1000), 3));
    await t.request
      .post(`/v1/sites/${site.siteId}/alerts`)
      .set('Authorization', site.auth)
      .send({ kind: 'first_pageview', recipients: ['first-later@example.com'] })
      .expect(201);
    await answerConfirmation(t, 'first-later@example.com', 'yes', 'alerts');
    expect(await run([site.siteId])).toEqual({ ran: true, fired: 0, failed: 0 });

    await postReport(t, site).expect(202);
    await t.deps.ingest.flushNow();
    expect(await run([site.siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('first-later@example.com', /^First pageview on first-later\.example$/);
    expect(mail.text).toContain('1 pageview so far');
  });

  it('sends nothing more to an address that unsubscribed from the rule; the others still get it', async () => {
    const siteId = await siteWith('Two readers', 30, 90);
    const alert = await ruleTo(siteId, 'stays@example.com', { kind: 'traffic_spike', thresholdPercent: 50 });
    await owner.alerts.update({ id: siteId, alert: alert.id, recipients: ['stays@example.com', 'leaves@example.com'] });
    await answerConfirmation(t, 'leaves@example.com', 'yes', 'alerts');
    await run([siteId]);
    const first = await t.smtp.waitFor('leaves@example.com', /^Traffic spike on Two readers$/);
    const token = linkToken(first, 'unsubscribe-alert');
    expect(await callerFor(t.deps, { anonymous: true }).alerts.unsubscribe({ token })).toEqual({
      address: 'leaves@example.com',
      siteName: 'Two readers',
    });
    // The next period fires again (as if a day had passed).
    const db = t.deps.orm.em.fork();
    await db.execute('delete from alert_deliveries where alert_id = ?', [alert.id]);
    await db.execute('update alerts set last_period = null where id = ?', [alert.id]);
    expect(await run([siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    await expect.poll(() => mailsTo('stays@example.com').length).toBe(2);
    expect(mailsTo('leaves@example.com')).toHaveLength(1);
    const { alert: after } = await owner.alerts.get({ id: siteId, alert: alert.id });
    expect(after.recipients.map((r) => r.address)).toEqual(['stays@example.com']);
    // A change of the rule sending its former list again (a form that kept it) does not put the address back.
    const changed = await owner.alerts.update({
      id: siteId,
      alert: alert.id,
      recipients: ['stays@example.com', 'leaves@example.com'],
    });
    expect(changed.alert.recipients.map((r) => r.address)).toEqual(['stays@example.com']);
    await db.execute('delete from alert_deliveries where alert_id = ?', [alert.id]);
    await db.execute('update alerts set last_period = null where id = ?', [alert.id]);
    expect(await run([siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    await expect.poll(() => mailsTo('stays@example.com').length).toBe(3);
    expect(mailsTo('leaves@example.com')).toHaveLength(1);
  });

  // The defect: any change to a rule asked every address on it again; one whose link had expired unanswered (or that
  // had unsubscribed from the reports) was mailed a new confirmation by a change it never made.
  it('a change to a rule asks none of the addresses already on it again', async () => {
    const siteId = await siteWith('Quiet reader', 30, 90);
    const address = 'quiet-reader@example.com';
    const { alert } = await owner.alerts.create({
      id: siteId,
      kind: 'traffic_spike',
      thresholdPercent: 50,
      recipients: [address],
    });
    await t.smtp.waitFor(address, /^Confirm/);
    const confirmations = () => t.smtp.mails.filter((m) => m.to.includes(address) && /^Confirm/.test(m.subject)).length;
    expect(confirmations()).toBe(1);
    await t.deps.orm.em
      .fork()
      .execute(`update report_recipients set expires_at = now() - interval '1 minute' where address = ?`, [address]);
    await owner.alerts.update({ id: siteId, alert: alert.id, thresholdPercent: 60 });
    await runEmailReports(t.deps.orm, t.deps, { siteIds: [siteId], wait: true });
    expect(confirmations()).toBe(1);
    const { alert: after } = await owner.alerts.get({ id: siteId, alert: alert.id });
    expect(after.recipients).toEqual([expect.objectContaining({ address, confirmation: 'expired' })]);
  });

  it(`holds e-mails once the workspace has sent ${MAIL_BUDGET.alertsPerWorkspacePerDay} alerts in a day, and says so in the deliveries`, async () => {
    const siteId = await siteWith('Over budget', 30, 90);
    const alert = await ruleTo(siteId, 'budget@example.com', { kind: 'traffic_spike', thresholdPercent: 50 });
    for (let i = 0; i < MAIL_BUDGET.alertsPerWorkspacePerDay; i++) {
      await spendReportMail(t.deps.hot, 'alert', workspaceId, `spent${i % 40}@example.com`);
    }
    expect(await run([siteId])).toEqual({ ran: true, fired: 1, failed: 0 });
    const { deliveries } = await owner.alerts.deliveries({ id: siteId, alert: alert.id });
    expect(deliveries).toMatchObject([{ mails: 0, mailsHeld: 1 }]);
    expect(mailsTo('budget@example.com')).toEqual([]);
  });
});
