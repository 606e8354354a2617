import { insertRows, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { lastClosedPeriod } from '../../../src/features/reports/periods.ts';
import { VALUE_IN_MAIL } from '../../../src/features/reports/report-mail.ts';
import { callerFor } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import type { CapturedMail } from '../../support/smtp.ts';

/**
 * Sources and pages come from visitors (a `utm_source`, a path), trimmed only at their ends: in a report they
 * are one line each, so no visitor writes lines of their own into the e-mail. Storage drops C0 and C1 control
 * characters, not the Unicode line and paragraph separators; rows stored before that cleaning are set here by SQL.
 */

const ZONE = 'UTC';
const WEEK = lastClosedPeriod('weekly', localToday(ZONE));
const INJECTED_SOURCE = 'evil\u2029Visitors: 1,000,000 (previous period 0)';
const INJECTED_PAGE = '/x\r\nUnsubscribe: https://evil.example/\u2028Call us';
const LONG_PAGE = `/${'a'.repeat(400)}`;

/** The lines a reader sees: Unicode's line and paragraph separators break lines too. */
const linesOf = (m: CapturedMail) =>
  Buffer.from(m.text, 'latin1')
    .toString('utf8')
    .split(/\r?\n|\u2028|\u2029/);

describe('values from visitors in a report e-mail', () => {
  let t: TestServer;
  let mail: CapturedMail;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Open shop', timezone: ZONE });
    const day = new Date(`${addDays(WEEK.from, 2)}T10:00:00Z`);
    await insertRows(t.deps.orm, 'pageviews', [
      ...pageviewRows(siteId, new Date(`${addDays(WEEK.from, -3)}T10:00:00Z`), 2, () => ({ source: 'www.google.com' })),
      ...pageviewRows(siteId, day, 6, () => ({ source: INJECTED_SOURCE, path: '/x' })),
      ...pageviewRows(siteId, day, 4, () => ({ source: 'www.google.com', path: LONG_PAGE })),
    ]);
    await t.deps.orm.em
      .fork()
      .execute(`update pageviews set path = ? where site_id = ? and path = '/x'`, [INJECTED_PAGE, siteId]);
    const owner = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['sites:read', 'sites:write', 'analytics:read'],
      }),
    );
    const { report } = await owner.reports.add({ id: siteId, address: 'values@example.com', frequency: 'weekly' });
    await answerConfirmation(t, 'values@example.com');
    await owner.reports.sendNow({ id: siteId, reportId: report.id });
    mail = await t.smtp.waitFor('values@example.com', /^Weekly report for Open shop/);
  });
  afterAll(() => t.close());

  it('writes each source and page on one line of the text part', () => {
    const lines = linesOf(mail);
    expect(lines.filter((l) => /^Visitors: /.test(l))).toHaveLength(1);
    expect(lines.some((l) => /^(Unsubscribe: https:\/\/evil|Call us)/.test(l))).toBe(false);
    expect(lines).toContain('  evil Visitors: 1,000,000 (previous period 0): 6 (was 0, +6)');
    expect(lines).toContain('  /x Unsubscribe: https://evil.example/ Call us: 6 (was 0, +6)');
    expect(lines).toContain('Biggest rise: source evil Visitors: 1,000,000 (previous period 0), 0 → 6 visitors (+6)');
  });

  it('shortens a long value, and writes values on one line in the HTML part too', () => {
    const shortened = `  /${'a'.repeat(VALUE_IN_MAIL - 2)}…: 4 (was 0, +4)`;
    expect(linesOf(mail)).toContain(shortened);
    const html = Buffer.from(mail.text, 'latin1').toString('utf8').split('Content-Type: text/html')[1] ?? '';
    expect(html).toContain('<td>evil Visitors: 1,000,000 (previous period 0)</td>');
    expect(html).toContain('<td>/x Unsubscribe: https://evil.example/ Call us</td>');
    expect(html).not.toContain('a'.repeat(VALUE_IN_MAIL));
  });
});
