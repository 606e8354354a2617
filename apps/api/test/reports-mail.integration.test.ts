import { randomUUID } from 'node:crypto';
import { insertRows, type PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmailReports } from '../src/jobs/email-reports.ts';
import { lastClosedPeriod } from '../src/services/reports/periods.ts';
import { callerFor, problemOf } from './support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from './support/server.ts';
import { linkToken } from './support/smtp.ts';
import { createSite } from './support/sites.ts';

/** Weekly and monthly e-mail reports, sent by the job into a real SMTP server, with the stats API's figures. */

// Monday 23 November 2026, 09:00 in Berlin: the week of 16–22 November has just closed there.
const MONDAY = new Date('2026-11-23T08:00:00Z');
const visit = (siteId: string, day: string, paths: string[], referrerHost: string | null): PageviewRow[] => {
  const visitor = `v-${randomUUID()}`;
  return paths.map((path, i) => ({
    siteId,
    at: new Date(`${day}T10:0${i}:00Z`),
    pageviewId: `pv-${randomUUID()}`,
    visitor,
    sessionStart: i === 0,
    lane: 'human' as const,
    path,
    referrerHost,
    device: 'desktop' as const,
  }));
};

describe('e-mail reports', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let siteId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Report shop', timezone: 'Europe/Berlin' }))
      .siteId;
    owner = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['sites:read', 'sites:write', 'analytics:read'],
      }),
    );
    // The week before: 2 sessions from Google; the week reported: 4 sessions, 3 of them direct.
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, '2026-11-10', ['/', '/pricing'], 'www.google.com'),
      ...visit(siteId, '2026-11-12', ['/blog'], 'www.google.com'),
      ...visit(siteId, '2026-11-16', ['/', '/pricing', '/signup'], null),
      ...visit(siteId, '2026-11-18', ['/pricing'], null),
      ...visit(siteId, '2026-11-20', ['/'], null),
      ...visit(siteId, '2026-11-21', ['/blog', '/'], 'news.ycombinator.com'),
    ]);
  });
  afterAll(() => t.close());

  /** A report as if it had been set up before the week of 16 November (so that week is its next). */
  async function reportFrom(address: string, frequency: 'weekly' | 'monthly', lastStart: string) {
    const { report } = await owner.reports.add({ id: siteId, address, frequency });
    await t.deps.orm.em.fork().execute('update email_reports set last_period_start = ? where id = ?', [lastStart, report.id]);
    return report;
  }

  it('names the periods in the site’s own days: the last full week (Monday to Sunday) or month', () => {
    expect(lastClosedPeriod('weekly', '2026-11-23')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(lastClosedPeriod('weekly', '2026-11-22')).toEqual({ from: '2026-11-09', to: '2026-11-15' });
    expect(lastClosedPeriod('weekly', '2026-11-29')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(lastClosedPeriod('monthly', '2026-11-01')).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(lastClosedPeriod('monthly', '2026-03-15')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
  });

  it('sends each due report once, with the figures the stats API gives for that week', async () => {
    const report = await reportFrom('weekly@example.com', 'weekly', '2026-11-09');
    // Sunday 23:30 UTC is already Monday in Berlin: the week has closed on the site's own days.
    expect(await runEmailReports(t.deps.orm, t.deps, { now: new Date('2026-11-22T23:30:00Z'), siteIds: [siteId] })).toEqual({
      sent: 1,
      failed: 0,
    });
    const sent = await t.smtp.waitFor('weekly@example.com', /^Weekly report for Report shop/);
    // The capture undoes quoted-printable byte by byte: read those bytes back as UTF-8 (the en dashes).
    const mail = { ...sent, text: Buffer.from(sent.text, 'latin1').toString('utf8').replace(/\r\n/g, '\n') };

    const week = { id: siteId, from: '2026-11-16', to: '2026-11-22' };
    const summary = await owner.stats.summary(week);
    expect(summary.measures.sessions.value).toBe(4);
    expect(summary.measures.sessions.change).toBe(100);
    expect(mail.subject).toBe('Weekly report for Report shop: 4 sessions (+100%)');
    expect(mail.text).toContain('Weekly report for Report shop, Nov 16 – Nov 22, 2026 (People, days in Europe/Berlin).');
    expect(mail.text).toContain(`Compared with ${summary.previousFrom} – ${summary.previousTo}.`);
    expect(mail.text).toContain(`Pageviews: ${summary.measures.pageviews.value} (+${summary.measures.pageviews.change}%)`);
    expect(mail.text).toContain(`Bounce rate: ${summary.measures.bounceRate.value}%`);
    const sources = await owner.stats.top({ ...week, dimension: 'source' });
    expect(sources.rows.map((r) => [r.value, r.count])).toEqual([
      [null, 3],
      ['news.ycombinator.com', 1],
    ]);
    expect(mail.text).toContain('Top sources (sessions, change)\n  Direct / none: 3 (+3)\n  news.ycombinator.com: 1 (+1)');
    expect(mail.text).toContain('Biggest rise: source Direct / none, +3 sessions');
    expect(mail.text).toContain('Biggest fall: source www.google.com, -2 sessions');
    expect(mail.text).toContain(`/sites/${siteId}/dashboard?range=custom&from=2026-11-16&to=2026-11-22`);
    expect(mail.raw).toContain('Content-Type: text/html');

    // Again in the same week: nothing more. The list says when it was sent.
    const before = t.smtp.mails.length;
    expect(await runEmailReports(t.deps.orm, t.deps, { now: MONDAY, siteIds: [siteId] })).toEqual({ sent: 0, failed: 0 });
    expect(t.smtp.mails.length).toBe(before);
    const listed = (await owner.reports.list({ id: siteId })).reports.find((r) => r.id === report.id);
    expect(listed?.lastSentAt).toBe('2026-11-22T23:30:00.000Z');

    // The mail's unsubscribe link removes exactly that report, once.
    const token = linkToken(mail, 'unsubscribe-report');
    const anonymous = callerFor(t.deps, { anonymous: true });
    expect(await anonymous.reports.unsubscribe({ token })).toEqual({
      address: 'weekly@example.com',
      siteName: 'Report shop',
      frequency: 'weekly',
    });
    expect((await owner.reports.list({ id: siteId })).reports.some((r) => r.id === report.id)).toBe(false);
    expect((await problemOf(anonymous.reports.unsubscribe({ token }))).status).toBe(404);
  });

  it('keeps a report whose e-mail failed due, and sends it at the next run; the others still go', async () => {
    const failing = await reportFrom('flaky@example.com', 'weekly', '2026-11-09');
    const other = await reportFrom('steady@example.com', 'monthly', '2026-09-01');
    let refused = 0;
    const refusing = {
      ...t.deps,
      mailer: {
        send: async (m: { to: string }) => {
          if (m.to === 'flaky@example.com') {
            refused++;
            throw new Error('SMTP said 451 try again later');
          }
          return t.deps.mailer.send(m as never);
        },
        close() {},
      },
    };
    expect(await runEmailReports(t.deps.orm, refusing, { now: MONDAY, siteIds: [siteId] })).toEqual({ sent: 1, failed: 1 });
    expect(refused).toBe(1);
    const monthly = await t.smtp.waitFor('steady@example.com', /^Monthly report for Report shop/);
    expect(Buffer.from(monthly.text, 'latin1').toString('utf8')).toContain('Monthly report for Report shop, October 2026');
    expect(await runEmailReports(t.deps.orm, t.deps, { now: MONDAY, siteIds: [siteId] })).toEqual({ sent: 1, failed: 0 });
    await t.smtp.waitFor('flaky@example.com', /^Weekly report for Report shop: 4 sessions/);
    await owner.reports.remove({ id: siteId, reportId: failing.id });
    await owner.reports.remove({ id: siteId, reportId: other.id });
  });

  it('refuses unsubscribe links that were made up', async () => {
    const anonymous = callerFor(t.deps, { anonymous: true });
    const { report } = await owner.reports.add({ id: siteId, address: 'kept@example.com', frequency: 'weekly' });
    for (const token of [`${report.id}_${'0'.repeat(64)}`, `${randomUUID()}_${'a'.repeat(64)}`, 'nonsense']) {
      expect((await problemOf(anonymous.reports.unsubscribe({ token }))).status).toBe(404);
    }
    expect((await owner.reports.list({ id: siteId })).reports.map((r) => r.address)).toContain('kept@example.com');
  });
});
