import { randomUUID } from 'node:crypto';
import { insertRows, type PageviewRow } from '@us/db';
import { describe, expect, it } from 'vitest';
import { lastClosedPeriod } from '../../api/src/services/reports/periods.ts';
import { addDays, localToday } from '../../api/src/services/stats/range.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const session = (siteId: string, day: string, referrerHost: string | null): PageviewRow => ({
  siteId,
  at: new Date(`${day}T12:00:00Z`),
  pageviewId: `pv-${randomUUID()}`,
  visitor: `v-${randomUUID()}`,
  sessionStart: true,
  lane: 'human',
  path: '/',
  referrerHost,
  device: 'desktop',
});

/** An owner sets up a weekly report in the site page, sends it now, and the recipient unsubscribes from the e-mail. */
describe('e-mail reports in a real browser', () => {
  const suite = dashboardSuite();

  it('sends the last full week to the address at once, with the figures of that week; its link unsubscribes', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Report workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Weekly shop' });
    // Three sessions in the last full week (UTC, the site's zone), one in the week before.
    const week = lastClosedPeriod('weekly', localToday('UTC'));
    await insertRows(t.deps.orm, 'pageviews', [
      session(siteId, week.from, 'www.google.com'),
      session(siteId, addDays(week.from, 2), null),
      session(siteId, week.to, null),
      session(siteId, addDays(week.from, -3), 'www.google.com'),
    ]);

    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}`);
    const form = page.getByRole('form', { name: 'Add an e-mail report' });
    await form.getByLabel('E-mail address').fill('board@example.com');
    await form.getByLabel('Every').selectOption('weekly');
    await form.getByRole('button', { name: 'Add report' }).click();
    const table = page.getByRole('table', { name: 'E-mail reports' });
    await table.getByRole('rowheader', { name: 'board@example.com' }).waitFor();

    await page.getByRole('button', { name: 'Send the weekly report to board@example.com now' }).click();
    await page.getByText(`Sent the report of ${week.from} – ${week.to} to board@example.com.`).waitFor();
    const mail = await t.smtp.waitFor('board@example.com', /^Weekly report for Weekly shop/);
    expect(mail.subject).toBe('Weekly report for Weekly shop: 3 sessions (+200%)');
    expect(mail.text).toContain('Top sources (sessions, change)');

    // The recipient opens the e-mail's unsubscribe link: one press stops it.
    const link = /(http:\/\/\S+\/unsubscribe-report\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
    expect(link).not.toBe('');
    const inbox = await suite.browser.newContext();
    const reader = await inbox.newPage();
    await reader.goto(link);
    await reader.getByRole('button', { name: 'Stop sending this report' }).click();
    await reader.getByText('The weekly report of Weekly shop is no longer sent to board@example.com.').waitFor();
    await page.reload();
    await page.getByText('No e-mail reports yet.').waitFor();
    await inbox.close();
    await context.close();
  });
});
