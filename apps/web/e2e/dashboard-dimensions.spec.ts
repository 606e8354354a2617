import { type EventRow, insertRows, type PageviewRow } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { at, measure, rowLabels, visit } from './support/visits.ts';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();
/** Each row's cells' texts (the row header first). */
type Cell = { textContent: string | null };
const cells = (page: Page, table: string) =>
  page
    .getByRole('table', { name: table, exact: true })
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => Array.from((r as unknown as { children: ArrayLike<Cell> }).children, (c) => (c.textContent ?? '').trim())),
    );

/**
 * Exit pages, screen sizes, time zones, browsers, operating systems and event values: the tabs people expect
 * beside pages, devices, countries and events.
 */
describe('dashboard: more dimensions', () => {
  const suite = dashboardSuite();

  it('shows exit pages, screen sizes, time zones, browsers, systems and event values, each as the API counts them', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Dimensions workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    const screen = (rows: PageviewRow[], windowWidth: number, timezone: string, software: Partial<PageviewRow>) =>
      rows.map((r) => ({ ...r, windowWidth, timezone, ...software }));
    const phone = screen(
      visit(siteId, 1, ['/', '/pricing', '/checkout'], { referrerHost: null, country: 'DE', device: 'mobile' }),
      390,
      'Europe/Berlin',
      { browser: 'Safari', browserMajor: 18, os: 'iOS', osMajor: 18 },
    );
    await insertRows(t.deps.orm, 'pageviews', [
      ...phone,
      ...screen(visit(siteId, 1, ['/blog'], { referrerHost: null, country: 'US', device: 'desktop' }), 1280, 'America/New_York', {
        browser: 'Chrome',
        browserMajor: 131,
        os: 'Windows',
        osMajor: null,
      }),
    ]);
    const event = (name: string, value?: number): EventRow => ({
      siteId,
      at: at(1, 3),
      pageviewId: phone[2]?.pageviewId as string,
      visitor: phone[2]?.visitor as string,
      lane: 'human',
      path: '/checkout',
      name,
      kind: 'event',
      device: 'mobile',
      ...(value === undefined ? {} : { value }),
    });
    await insertRows(t.deps.orm, 'events', [event('purchase', 19.99), event('purchase', 5), event('signup')]);

    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');

    // Exit pages: each visit at its last page; not a filter of the whole dashboard (pageviews have none).
    await page.getByRole('tab', { name: 'Exit pages' }).click();
    await expect.poll(() => rowLabels(page, 'Top exit pages')).toEqual(['/blog', '/checkout']);
    // Each ended every visit that reached it: an exit rate of 100 % of its pageviews.
    expect(await cells(page, 'Top exit pages')).toEqual([
      ['/blog', '1', '100%'],
      ['/checkout', '1', '100%'],
    ]);
    expect(await page.getByRole('table', { name: 'Top exit pages' }).locator('thead th').allTextContents()).toEqual([
      'Exit page',
      'Sessions',
      'Exit rate',
    ]);
    expect(await page.getByRole('table', { name: 'Top exit pages' }).getByRole('button').count()).toBe(0);

    // Time zones and screen sizes, the widths named.
    await page.getByRole('tab', { name: 'Time zones' }).click();
    await expect.poll(() => rowLabels(page, 'Top time zones')).toEqual(['America/New_York', 'Europe/Berlin']);
    await page.getByRole('tab', { name: 'Screen sizes' }).click();
    await expect.poll(() => rowLabels(page, 'Top screen sizes')).toEqual(['Laptop (992–1439 px)', 'Mobile (under 576 px)']);
    expect(await accessibilityProblems(page)).toEqual([]);

    // Event values: events that carry one, ranked by their sum, to the hundredth.
    await page.getByRole('tab', { name: 'Event values' }).click();
    await expect.poll(() => cells(page, 'Top event values')).toEqual([['purchase', '24.99', '100%']]);

    // Browsers and operating systems: the name, or the name and major version in the next tab.
    await page.getByRole('tab', { name: 'Browser versions' }).click();
    await expect.poll(() => rowLabels(page, 'Top browser versions')).toEqual(['Chrome 131', 'Safari 18']);
    await page.getByRole('tab', { name: 'OS versions' }).click();
    await expect.poll(() => rowLabels(page, 'Top os versions')).toEqual(['Windows', 'iOS 18']);
    await page.getByRole('tab', { name: 'Operating systems' }).click();
    await expect.poll(() => rowLabels(page, 'Top operating systems')).toEqual(['Windows', 'iOS']);
    await page.getByRole('tab', { name: 'Browsers', exact: true }).click();
    await expect.poll(() => rowLabels(page, 'Top browsers')).toEqual(['Chrome', 'Safari']);
    expect(await accessibilityProblems(page)).toEqual([]);
    // A browser filters the dashboard like any other row.
    await page.getByRole('table', { name: 'Top browsers' }).getByRole('button', { name: 'Safari' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('where.browser')).toBe('Safari');
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');
    await expect.poll(() => rowLabels(page, 'Top operating systems')).toEqual(['iOS']);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');

    // A screen size filters the dashboard like any other row.
    await page.getByRole('tab', { name: 'Screen sizes' }).click();
    await page.getByRole('table', { name: 'Top screen sizes' }).getByRole('button', { name: 'Mobile (under 576 px)' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('where.screen')).toBe('mobile');
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');

    // The events table in full, ranked by value: the value and its average beside the counts.
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await page.getByRole('tab', { name: 'Event values' }).click();
    await page.getByRole('link', { name: 'Every count of event values' }).click();
    await page.waitForURL(/\/dashboard\/event\?.*sort=value_sum/);
    const full = page.getByRole('table', { name: 'All events' });
    await full.waitFor();
    expect(await full.locator('thead th').allTextContents()).toEqual(['Event', 'Value ↓', 'Events', 'Visitors', 'Average value']);
    await expect
      .poll(() => cells(page, 'All events'))
      .toEqual([
        ['purchase', '24.99', '2', '1', '12.5'],
        ['signup', '0', '1', '1', '0'],
      ]);
    await page.screenshot({ path: '/tmp/e2e-dashboard-dimensions.png', fullPage: true });
    await context.close();
  });
});
