import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { MAIL_BUDGET } from '../../../src/core/mail/budget.ts';
import { askToConfirm } from '../../../src/features/reports/confirmation.ts';
import { runEmailReports } from '../../../src/features/reports/reports-job.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { answerConfirmation, confirmationsTo, confirmationTo } from '../../support/report-optin.ts';
import { createToken, createUser, startTestServer, type TestServer, uniqueEmail } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { linkToken } from '../../support/smtp.ts';

/**
 * Double opt-in for e-mail reports: a new address gets one confirmation mail and nothing else until it
 * confirms; unsubscribing (or saying no) puts it on the workspace's suppression list, which later reports
 * and invitations respect; confirmations and reports spend the mail budgets and wait for the next run
 * when they are spent, never dropped.
 */

const reportsTo = (t: TestServer, address: string) =>
  t.smtp.mails.filter((m) => m.to.includes(address) && /^(Weekly|Monthly) report for /.test(m.subject));

describe('e-mail report recipients confirm first', () => {
  let t: TestServer;
  const anonymous = () => callerFor(t.deps, { anonymous: true });

  /** A workspace of its own (so budgets and suppressions are its own), with sites and an owner's token. */
  async function workspace(siteNames: string[] = ['Opt-in shop'], workspaceName = 'Opt-in workspace') {
    const { user, workspace } = await createUser(t.deps, { plan: 'Business', workspaceName });
    const sites: string[] = [];
    for (const name of siteNames) sites.push((await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name })).siteId);
    const owner = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['analytics:read', 'sites:read', 'sites:write', 'members:read', 'members:write'],
      }),
    );
    return { workspaceId: workspace.id, sites, siteId: sites[0] as string, owner };
  }

  /** Makes a report due now: its last recorded week is three weeks back. */
  const makeDue = (reportId: string) =>
    t.deps.orm.em
      .fork()
      .execute('update email_reports set last_period_start = ? where id = ?', [addDays(localToday('UTC'), -21), reportId]);

  const run = (siteIds: string[], logger?: { error: (m: string) => void; warn: (m: string) => void }) =>
    runEmailReports(t.deps.orm, t.deps, { siteIds, wait: true, logger });

  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('a new address gets one confirmation mail and no report until it confirms; then it is not asked again', async () => {
    const { sites, siteId, owner } = await workspace(['Opt-in shop', 'Second shop']);
    const address = uniqueEmail('optin');
    const { report } = await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    expect(report.confirmation).toBe('waiting');
    const mail = await confirmationTo(t, address);
    expect(mail.subject).toBe('Confirm e-mail reports of Opt-in shop');
    expect(mail.text).toMatch(/\/confirm-report\?token=/);
    expect(mail.text).toContain('expires in 7 days');

    // Due, but not confirmed: neither the job nor Send now sends it.
    await makeDue(report.id);
    expect((await run(sites)).sent).toBe(0);
    expect(await problemOf(owner.reports.sendNow({ id: siteId, reportId: report.id }))).toMatchObject({
      status: 409,
      title: expect.stringMatching(/has not confirmed/),
    });
    // Another report to the same address (another frequency, another site): no second mail.
    await owner.reports.add({ id: siteId, address, frequency: 'monthly' });
    await owner.reports.add({ id: sites[1] as string, address, frequency: 'weekly' });
    expect(confirmationsTo(t, address)).toHaveLength(1);
    expect(reportsTo(t, address)).toHaveLength(0);

    const answer = await answerConfirmation(t, address);
    expect(answer).toEqual({ address, answer: 'yes', sites: ['Opt-in shop', 'Second shop'] });
    expect((await owner.reports.list({ id: siteId })).reports.map((r) => r.confirmation)).toEqual(['confirmed', 'confirmed']);
    // The link works once.
    const token = linkToken(mail, 'confirm-report');
    expect(await problemOf(anonymous().reports.confirm({ token, answer: 'yes' }))).toMatchObject({
      status: 404,
      title: expect.stringMatching(/^This confirmation link is unknown, used or expired/),
    });

    expect((await run([siteId])).sent).toBe(1);
    await t.smtp.waitFor(address, /^Weekly report for Opt-in shop/);
    // Confirmed for this workspace: a report added later starts confirmed, and no mail asks again.
    const second = sites[1] as string;
    await owner.reports.remove({ id: second, reportId: (await owner.reports.list({ id: second })).reports[0]?.id ?? '' });
    expect((await owner.reports.add({ id: second, address, frequency: 'monthly' })).report.confirmation).toBe('confirmed');
    expect(confirmationsTo(t, address)).toHaveLength(1);
  });

  it('a confirmation expires after 7 days: the list says so, the link is refused, adding the address again asks once more', async () => {
    const { workspaceId, siteId, owner } = await workspace();
    const address = uniqueEmail('expired');
    const { report } = await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    const token = linkToken(await confirmationTo(t, address), 'confirm-report');
    await t.deps.orm.em
      .fork()
      .execute(`update report_recipients set expires_at = now() - interval '1 minute' where workspace_id = ?`, [workspaceId]);
    expect((await owner.reports.list({ id: siteId })).reports[0]?.confirmation).toBe('expired');
    expect((await problemOf(anonymous().reports.confirm({ token, answer: 'yes' }))).status).toBe(404);
    await owner.reports.remove({ id: siteId, reportId: report.id });
    expect((await owner.reports.add({ id: siteId, address, frequency: 'weekly' })).report.confirmation).toBe('waiting');
    await expect.poll(() => confirmationsTo(t, address).length).toBe(2);
  });

  it('the confirmation mail carries the site’s name, on one line and escaped, and no other text of the sender', async () => {
    const { siteId, owner } = await workspace(
      ['Prize <b>winner</b>\u0007\r\nBcc: x@example.com'],
      'Call 555 0100 http://phish.example',
    );
    const address = uniqueEmail('bounded');
    await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    const mail = await confirmationTo(t, address);
    expect(mail.subject).toBe('Confirm e-mail reports of Prize <b>winner</b> Bcc: x@example.com');
    expect(mail.to).toEqual([address]);
    expect(mail.raw).not.toContain('\u0007');
    expect(mail.text).toContain('Prize &#60;b&#62;winner&#60;/b&#62;');
    expect(mail.text).not.toContain('phish.example');
    expect(mail.text).not.toContain('555 0100');
  });

  it('saying no removes the workspace’s reports to the address and suppresses it there; other workspaces may still ask', async () => {
    const { siteId, owner } = await workspace();
    const address = uniqueEmail('declines');
    await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    expect(await answerConfirmation(t, address, 'no')).toEqual({ address, answer: 'no', sites: ['Opt-in shop'] });
    expect((await owner.reports.list({ id: siteId })).reports).toEqual([]);
    expect(await problemOf(owner.reports.add({ id: siteId, address, frequency: 'monthly' }))).toMatchObject({
      status: 409,
      field: 'address',
      title: `${address} asked not to get e-mail from this workspace: reports cannot be sent to it`,
    });
    const other = await workspace();
    expect((await other.owner.reports.add({ id: other.siteId, address, frequency: 'weekly' })).report.confirmation).toBe(
      'waiting',
    );
  });

  it('unsubscribing suppresses the address for the workspace (kept as a keyed hash): no report, no invitation', async () => {
    const { workspaceId, sites, siteId, owner } = await workspace(['Opt-in shop', 'Other shop']);
    const address = uniqueEmail('unsubscribes');
    const { report } = await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    await owner.reports.add({ id: sites[1] as string, address, frequency: 'monthly' });
    await answerConfirmation(t, address);
    await makeDue(report.id);
    await run([siteId]);
    const sent = await t.smtp.waitFor(address, /^Weekly report for Opt-in shop/);

    const answer = await anonymous().reports.unsubscribe({ token: linkToken(sent, 'unsubscribe-report') });
    expect(answer).toEqual({ address, siteName: 'Opt-in shop', frequency: 'weekly' });
    // Every report of the workspace to it stops, not only the one unsubscribed from.
    expect((await owner.reports.list({ id: sites[1] as string })).reports).toEqual([]);
    expect((await problemOf(owner.reports.add({ id: siteId, address, frequency: 'weekly' }))).status).toBe(409);
    expect(await problemOf(owner.members.createInvite({ email: address.toUpperCase(), role: 'viewer' }))).toMatchObject({
      status: 409,
      field: 'email',
      title: `${address} asked not to get e-mail from this workspace: no invitation is sent to it`,
    });
    const stored = await t.deps.orm.em
      .fork()
      .execute<Record<string, unknown>[]>('select * from mail_suppressions where workspace_id = ?', [workspaceId]);
    expect(stored).toHaveLength(1);
    const plainHash = createHash('sha256').update(address).digest('hex');
    expect(JSON.stringify(stored)).not.toContain(address);
    expect(JSON.stringify(stored)).not.toContain(plainHash);
  });

  it('a confirmation over the workspace’s hourly budget waits, logged, and goes out at a later run', async () => {
    const { workspaceId, siteId, owner } = await workspace();
    await t.deps.hot.set(`report-confirm-hour:${workspaceId}`, String(MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour), 3600);
    const address = uniqueEmail('later');
    expect((await owner.reports.add({ id: siteId, address, frequency: 'weekly' })).report.confirmation).toBe('waiting');
    const warnings: string[] = [];
    const logger = { error: (m: string) => warnings.push(m), warn: (m: string) => warnings.push(m) };
    await run([siteId], logger);
    expect(confirmationsTo(t, address)).toHaveLength(0);
    expect(warnings.some((w) => /confirmation/.test(w) && /next run/.test(w))).toBe(true);
    // The hour turns.
    await t.deps.hot.del(`report-confirm-hour:${workspaceId}`);
    await run([siteId], logger);
    await confirmationTo(t, address);
    expect(confirmationsTo(t, address)).toHaveLength(1);
  });

  it('a workspace over its budget is asked once a run, however many of its addresses wait (each cost a claim and a log line)', async () => {
    // Two sites of ten reports each: twenty addresses waiting.
    const { workspaceId, sites, owner } = await workspace(['Queued one', 'Queued two']);
    await t.deps.hot.set(`report-confirm-hour:${workspaceId}`, String(MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour), 3600);
    const addresses = Array.from({ length: 20 }, (_, i) => uniqueEmail(`queued-${i}`));
    for (const [i, address] of addresses.entries()) {
      await owner.reports.add({ id: sites[i % 2] as string, address, frequency: 'weekly' });
    }
    const warnings: string[] = [];
    const logger = { error: (m: string) => warnings.push(m), warn: (m: string) => warnings.push(m) };
    await run(sites, logger);
    expect(warnings.filter((w) => w.includes(workspaceId) && /confirmation/.test(w))).toHaveLength(1);
    // The hour turns: the addresses are asked at the next run, as far as the budget goes.
    await t.deps.hot.del(`report-confirm-hour:${workspaceId}`);
    await run(sites, logger);
    for (const address of addresses.slice(0, MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour))
      await confirmationTo(t, address);
  });

  // The defect: a confirmation the mail server refused still spent the workspace's confirmations of the hour and day,
  // so a mail outage used up its 50 a day and the addresses waited until the next day.
  it("a confirmation the mail server refused gives the workspace's budget back", async () => {
    const { workspaceId, sites, owner } = await workspace(['Outage A', 'Outage B', 'Outage C']);
    const limit = MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour;
    // Added while the hour's confirmations are spent: none is mailed yet.
    await t.deps.hot.set(`report-confirm-hour:${workspaceId}`, String(limit), 3600);
    const refused = Array.from({ length: 10 }, () => uniqueEmail('refused'));
    const fresh = Array.from({ length: limit }, () => uniqueEmail('fresh'));
    for (const address of refused) await owner.reports.add({ id: sites[0] as string, address, frequency: 'weekly' });
    for (const [i, address] of fresh.entries()) {
      await owner.reports.add({ id: sites[1 + Math.floor(i / 10)] as string, address, frequency: 'weekly' });
    }
    await t.deps.hot.del(`report-confirm-hour:${workspaceId}`);
    const down = { ...t.deps, mailer: { ...t.deps.mailer, send: () => Promise.reject(new Error('451 try again later')) } };
    for (const address of refused) {
      expect(await askToConfirm(down, t.deps.orm.em.fork(), workspaceId, address, undefined)).toBe('waiting');
    }
    // The mail server is back: the hour's confirmations are all there.
    for (const address of fresh) {
      expect(await askToConfirm(t.deps, t.deps.orm.em.fork(), workspaceId, address, undefined)).toBe('sent');
    }
  });

  it('a confirmation whose sender stopped before mailing it goes out at a run after its claim lapses, not 7 days later', async () => {
    const { workspaceId, siteId, owner } = await workspace();
    await t.deps.hot.set(`report-confirm-hour:${workspaceId}`, String(MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour), 3600);
    const address = uniqueEmail('stopped');
    await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    await t.deps.hot.del(`report-confirm-hour:${workspaceId}`);
    // A process claims the address, then stops while its mail server is still being asked (a deploy's SIGTERM).
    const stopping = { ...t.deps, mailer: { ...t.deps.mailer, send: () => new Promise<never>(() => {}) } };
    void askToConfirm(stopping, t.deps.orm.em.fork(), workspaceId, address, undefined);
    const claimed = async () =>
      (await t.deps.orm.em.fork().execute('select mailed_at from report_recipients where workspace_id = ?', [workspaceId]))[0]
        ?.mailed_at ?? null;
    await expect.poll(claimed).not.toBeNull();
    // While the claim holds, a run does not send a second e-mail beside the one in flight.
    await run([siteId]);
    expect(confirmationsTo(t, address)).toHaveLength(0);
    // A quarter of an hour later the claim has lapsed: the next run sends it, and its link works.
    await t.deps.orm.em
      .fork()
      .execute(`update report_recipients set sending_until = now() - interval '1 second' where workspace_id = ?`, [workspaceId]);
    await run([siteId]);
    await confirmationTo(t, address);
    expect(await answerConfirmation(t, address)).toMatchObject({ address, answer: 'yes' });
    expect(confirmationsTo(t, address)).toHaveLength(1);
  });

  it('scheduled reports spend the address’s and the workspace’s budgets; those over wait for a later run, logged', async () => {
    const names = Array.from({ length: MAIL_BUDGET.perAddressPerHour + 1 }, (_, i) => `Budget shop ${i + 1}`);
    const { workspaceId, sites, owner } = await workspace(names);
    const address = uniqueEmail('busy-reader');
    const reports = [];
    for (const id of sites) reports.push((await owner.reports.add({ id, address, frequency: 'weekly' })).report);
    await answerConfirmation(t, address);
    for (const r of reports) await makeDue(r.id);
    const warnings: string[] = [];
    const logger = { error: (m: string) => warnings.push(m), warn: (m: string) => warnings.push(m) };
    // The confirmation was one of the address's e-mails this hour.
    const first = await run(sites, logger);
    expect(first).toMatchObject({ sent: MAIL_BUDGET.perAddressPerHour - 1, deferred: 2, failed: 0 });
    expect(reportsTo(t, address)).toHaveLength(MAIL_BUDGET.perAddressPerHour - 1);
    expect(warnings.some((w) => /2 reports/.test(w) && /next run/.test(w))).toBe(true);
    await t.deps.hot.del(`mail-budget:${createHash('sha256').update(address).digest('hex')}`);
    expect(await run(sites, logger)).toMatchObject({ sent: 2, deferred: 0 });
    expect(reportsTo(t, address)).toHaveLength(sites.length);

    // The workspace's hourly budget for reports, spent: nothing goes until it turns.
    const later = uniqueEmail('workspace-budget');
    const { report } = await owner.reports.add({ id: sites[0] as string, address: later, frequency: 'monthly' });
    await answerConfirmation(t, later);
    await t.deps.orm.em
      .fork()
      .execute('update email_reports set last_period_start = ? where id = ?', [addDays(localToday('UTC'), -90), report.id]);
    await t.deps.hot.set(`report-mail-hour:${workspaceId}`, String(MAIL_BUDGET.reportsPerWorkspacePerHour), 3600);
    expect(await run(sites, logger)).toMatchObject({ sent: 0, deferred: 1 });
    await t.deps.hot.del(`report-mail-hour:${workspaceId}`);
    expect(await run(sites, logger)).toMatchObject({ sent: 1, deferred: 0 });
  });
});
