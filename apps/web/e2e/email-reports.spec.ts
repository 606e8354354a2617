import { randomUUID } from 'node:crypto';
import { insertRows, type PageviewRow } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../api/src/analytics/range.ts';
import { lastClosedPeriod } from '../../api/src/features/reports/periods.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { measure } from './support/visits.ts';

/** A session of `visitor` at noon (UTC, the site's zone) of `day`, from `referrerHost`. */
const session = (siteId: string, day: string, visitor: string, referrerHost: string | null, hour = 12): PageviewRow => ({
  siteId,
  at: new Date(`${day}T${hour}:00:00Z`),
  pageviewId: `pv-${randomUUID()}`,
  visitor,
  sessionStart: true,
  lane: 'human',
  path: '/',
  referrerHost,
  device: 'desktop',
});

/** The visitors a full table of the dashboard shows per row label. */
async function visitorsColumn(page: Page, table: string): Promise<Record<string, string>> {
  const t = page.getByRole('table', { name: table, exact: true });
  await t.locator('tbody tr').first().waitFor();
  const headings = await t.locator('thead th').allTextContents();
  const column = headings.findIndex((h) => h.startsWith('Visitors'));
  const rows = await t.locator('tbody tr').all();
  const out: Record<string, string> = {};
  for (const row of rows) {
    const label = (await row.locator('th').textContent()) ?? '';
    out[label] = (await row.locator('th, td').nth(column).textContent()) ?? '';
  }
  return out;
}

/**
 * An owner sets up a weekly report in the site page; the address confirms from the one e-mail it got; the
 * owner sends it now, and the recipient unsubscribes from the e-mail.
 */
describe('e-mail reports in a real browser', () => {
  const suite = dashboardSuite();

  it('asks the address to confirm, then sends the last full week at once, with the figures the dashboard shows; its link unsubscribes', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Report workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Weekly shop' });
    // The last full week (UTC, the site's zone): 3 visitors, one of them back later that day directly
    // (4 sessions); the week before: 1 visitor.
    const week = lastClosedPeriod('weekly', localToday('UTC'));
    const returning = `v-${randomUUID()}`;
    await insertRows(t.deps.orm, 'pageviews', [
      session(siteId, week.from, returning, 'www.google.com'),
      session(siteId, week.from, returning, null, 18),
      session(siteId, addDays(week.from, 2), `v-${randomUUID()}`, null),
      session(siteId, week.to, `v-${randomUUID()}`, 'news.ycombinator.com'),
      session(siteId, addDays(week.from, -3), `v-${randomUUID()}`, 'www.google.com'),
    ]);

    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}`);
    const form = page.getByRole('form', { name: 'Add an e-mail report' });
    await form.getByLabel('E-mail address').fill('board@example.com');
    await form.getByLabel('Frequency').selectOption('weekly');
    await form.getByRole('button', { name: 'Add report' }).click();
    const table = page.getByRole('table', { name: 'E-mail reports' });
    await table.getByRole('rowheader', { name: 'board@example.com' }).waitFor();
    const row = table.getByRole('row', { name: /board@example\.com/ });
    expect(await row.textContent()).toContain('Weekly');
    expect(await row.textContent()).toContain('Waiting for confirmation');
    const sendNow = page.getByRole('button', { name: 'Send now: the weekly report to board@example.com' });
    expect(await sendNow.isDisabled()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);

    // The address got one e-mail, asking it to confirm; its page asks for a press.
    const confirmation = await t.smtp.waitFor('board@example.com', /^Confirm e-mail reports of Weekly shop$/);
    const confirmLink = /(http:\/\/\S+\/confirm-report\?token=[A-Za-z0-9_%-]+)/.exec(confirmation.text)?.[1] ?? '';
    expect(confirmLink).not.toBe('');
    const inbox = await suite.browser.newContext();
    const reader = await inbox.newPage();
    await reader.goto(confirmLink);
    const yes = reader.getByRole('button', { name: 'Yes, send me these e-mails' });
    await yes.waitFor();
    expect(await accessibilityProblems(reader)).toEqual([]);
    await yes.click();
    await reader.getByText('Confirmed: board@example.com gets the reports and alerts asked for Weekly shop.').waitFor();
    await page.reload();
    await expect.poll(() => row.textContent()).toContain('Confirmed');

    await sendNow.click();
    await page.getByText(`Sent the report of ${week.from} – ${week.to} to board@example.com.`).waitFor();
    const mail = await t.smtp.waitFor('board@example.com', /^Weekly report for Weekly shop/);
    const text = Buffer.from(mail.text, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
    expect(mail.subject).toBe('Weekly report for Weekly shop: 3 visitors (+200%)');

    // The e-mail's dashboard link shows that week; its figures are the e-mail's.
    const dashboard = /(http:\/\/\S+\/dashboard\?range=custom&from=\S+&to=\S+)/.exec(text)?.[1] ?? '';
    expect(dashboard).toBe(`${t.deps.urls.app}/sites/${siteId}/dashboard?range=custom&from=${week.from}&to=${week.to}`);
    await page.goto(dashboard);
    await expect.poll(() => measure(page, 'Sessions').locator('.dash-measure-value').textContent()).toBe('4');
    expect(text).toContain('Sessions: 4 (previous period 1, +300%)');
    // Visitors per source, as the dashboard's full Sources table shows them for the week.
    await page.goto(`${dashboard.replace('/dashboard?', '/dashboard/source?')}&sort=visitors`);
    const visitors = await visitorsColumn(page, 'All sources');
    expect(visitors).toEqual({ 'Direct / none': '2', 'news.ycombinator.com': '1', 'www.google.com': '1' });
    expect(text).toContain(
      [
        'Top sources by visitors',
        `  Direct / none: ${visitors['Direct / none']} (was 0, +2)`,
        `  news.ycombinator.com: ${visitors['news.ycombinator.com']} (was 0, +1)`,
        `  www.google.com: ${visitors['www.google.com']} (was 1, +0)`,
      ].join('\n'),
    );

    // The recipient opens the e-mail's unsubscribe link: one press (or Enter) stops it.
    const link = /(http:\/\/\S+\/unsubscribe-report\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '';
    expect(link).not.toBe('');
    await reader.goto(link);
    const stop = reader.getByRole('button', { name: 'Stop sending this report' });
    expect(await accessibilityProblems(reader)).toEqual([]);
    await stop.focus();
    await reader.keyboard.press('Enter');
    await reader
      .getByText(
        'The weekly report of Weekly shop is no longer sent to board@example.com, nor any other report or invitation of its workspace.',
      )
      .waitFor();
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByText('No e-mail reports yet.').waitFor();
    await inbox.close();
    await context.close();
  });
});
