import { randomBytes } from 'node:crypto';
import { REPORTS_PER_SITE } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../src/analytics/range.ts';
import { MAIL_BUDGET } from '../../src/core/mail/budget.ts';
import { runEmailReports } from '../../src/features/reports/reports-job.ts';
import { type CollectSite, collectSite, postReport } from '../support/collect.ts';
import { answerConfirmation, CONFIRMATION_SUBJECT, confirmationTo } from '../support/report-optin.ts';
import { signedInOwner, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';
import { createSite } from '../support/sites.ts';

const STRANGERS = 250;

/**
 * A Free account tries to make the service mail strangers: within an hour it adds 250 addresses it does
 * not own as report recipients (adding and removing, 10 at a time, over its 5 sites). The strangers get
 * at most the workspace's hourly confirmation budget of e-mails and no report at all; another workspace's
 * reports and confirmations still go out, and its visitors are still counted.
 */
describe('attack: e-mail reports to 250 strangers an hour', () => {
  let t: TestServer;
  let bystander: CollectSite;
  let bystanderReport: string;
  const bystanderReader = uniqueEmail('bystander-reader');
  const stranger = (i: number) => `stranger-${i}-${randomBytes(4).toString('hex')}@example.test`;

  /** A dashboard call of the tRPC face (what the dashboard sends), with the caller's credential. */
  const trpc = (path: string, credential: { cookie?: string; auth?: string }, input: unknown) => {
    const req = t.request.post(`/trpc/${path}`);
    if (credential.cookie) req.set('Cookie', credential.cookie);
    if (credential.auth) req.set('Authorization', credential.auth);
    return req.send(input as object);
  };

  beforeAll(async () => {
    t = await startTestServer();
    // The bystander: a workspace with a confirmed reader of a weekly report that is due.
    bystander = await collectSite(t, `bystander-${randomBytes(4).toString('hex')}.example.com`, ['analytics:read']);
    const added = await trpc('reports.add', bystander, { id: bystander.siteId, address: bystanderReader, frequency: 'weekly' });
    expect(added.status).toBe(200);
    bystanderReport = added.body.result.data.report.id;
    await answerConfirmation(t, bystanderReader);
    await t.deps.orm.em
      .fork()
      .execute('update email_reports set last_period_start = ? where id = ?', [addDays(localToday('UTC'), -21), bystanderReport]);
  });
  afterAll(() => t.close());

  it(`sends at most ${MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour} confirmations and no report; others are still mailed and counted`, {
    timeout: 120_000,
  }, async () => {
    const attacker = await signedInOwner(t, { plan: 'Free' });
    const sites: string[] = [];
    for (let i = 0; i < 5; i++) {
      sites.push((await createSite(t.deps.orm.em.fork(), { workspace: attacker.workspace.id, name: `Spam ${i}` })).siteId);
    }
    const addresses: string[] = [];
    const statuses: number[] = [];
    const kept: { id: string; reportId: string }[] = [];
    for (let round = 0; addresses.length < STRANGERS; round++) {
      const id = sites[round % sites.length] as string;
      const batch: string[] = [];
      for (let i = 0; i < REPORTS_PER_SITE; i++) {
        const address = stranger(addresses.length);
        addresses.push(address);
        const res = await trpc('reports.add', attacker, { id, address, frequency: 'weekly' });
        statuses.push(res.status);
        batch.push(res.body.result?.data.report.id);
      }
      // The last round of each site stays; the others are removed to make room for more.
      if (addresses.length > STRANGERS - sites.length * REPORTS_PER_SITE) {
        for (const reportId of batch) kept.push({ id, reportId });
      } else {
        for (const reportId of batch) expect((await trpc('reports.remove', attacker, { id, reportId })).status).toBe(200);
      }
    }
    expect(addresses).toHaveLength(STRANGERS);
    expect(statuses.every((s) => s === 200)).toBe(true);

    const mailsToStrangers = () => t.smtp.mails.filter((m) => m.to.some((to) => addresses.includes(to)));
    const confirmations = mailsToStrangers().filter((m) => CONFIRMATION_SUBJECT.test(m.subject));
    expect(confirmations.length).toBeGreaterThan(0);
    expect(confirmations.length).toBeLessThanOrEqual(MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour);

    // Send now is refused for an address that has not confirmed.
    const [first] = kept;
    expect((await trpc('reports.sendNow', attacker, first)).status).toBe(409);

    // Weeks pass for the reports that stayed, so they are due; the hourly job, twice within the hour: no
    // report to a stranger, no confirmation past the budget, and the bystander's report goes out.
    const threeWeeksBack = addDays(localToday('UTC'), -21);
    for (const k of kept) {
      await t.deps.orm.em
        .fork()
        .execute('update email_reports set last_period_start = ? where id = ?', [threeWeeksBack, k.reportId]);
    }
    for (let run = 0; run < 2; run++)
      await runEmailReports(t.deps.orm, t.deps, { siteIds: [...sites, bystander.siteId], wait: true });
    expect(mailsToStrangers().filter((m) => !CONFIRMATION_SUBJECT.test(m.subject))).toEqual([]);
    expect(mailsToStrangers().length).toBeLessThanOrEqual(MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour);
    await t.smtp.waitFor(bystanderReader, /^Weekly report for /);

    // The bystander's own new recipient is asked at once, and its visitors are still counted.
    const newcomer = uniqueEmail('bystander-newcomer');
    expect((await trpc('reports.add', bystander, { id: bystander.siteId, address: newcomer, frequency: 'monthly' })).status).toBe(
      200,
    );
    await confirmationTo(t, newcomer);
    await postReport(t, bystander, { ip: '198.51.100.30' }).expect(202);
    await t.deps.ingest.flushNow();
    const summary = await t.request
      .get(`/v1/sites/${bystander.siteId}/summary`)
      .query({ days: 1 })
      .set('Authorization', bystander.auth)
      .expect(200);
    expect(summary.body.measures.pageviews.value).toBe(1);
  });
});
