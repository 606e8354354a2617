import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { dayAgo, measure, rowLabels, visit } from './support/visits.ts';

const SCREENSHOT = '/tmp/e2e-dashboard-filters.png';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();
const chips = (page: Page) => page.getByRole('list', { name: 'Filters' }).locator('li > span').allTextContents();
const where = (page: Page) =>
  [...new URL(page.url()).searchParams].filter(([k]) => k.startsWith('where.')).map(([k, v]) => `${k}=${v}`);

/** Clicking rows of the top tables filters every card, the chart and every table; filters stack and live in the address. */
describe('dashboard: filter by clicking', () => {
  const suite = dashboardSuite();

  it('a clicked row filters the whole dashboard; chips remove filters; the address keeps them', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Filters workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Filter shop' });
    // 5 sessions, 10 pageviews. Germany: 3 sessions (6 pageviews); Google: 2 sessions (5 pageviews), one from Germany.
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, 1, ['/', '/pricing', '/pricing'], { referrerHost: 'www.google.com', country: 'DE', device: 'desktop' }),
      ...visit(siteId, 2, ['/pricing', '/blog/hello'], { referrerHost: 'news.ycombinator.com', country: 'US', device: 'mobile' }),
      ...visit(siteId, 2, ['/pricing'], { referrerHost: null, country: 'DE', device: 'desktop' }),
      ...visit(siteId, 4, ['/', '/pricing'], { referrerHost: 'www.google.com', country: 'FR', device: 'mobile' }),
      ...visit(siteId, 5, ['/blog/hello', '/'], { referrerHost: null, country: 'DE', device: 'desktop' }),
    ]);

    const { context, page } = await signedInPage(suite, owner.email, 15_000, 1000);
    const dashboard = `${t.url}/sites/${siteId}/dashboard`;
    await page.goto(dashboard);
    await expect.poll(() => figure(page, 'Sessions')).toBe('5');
    const chart = page.getByRole('img', { name: /^Sessions and pageviews per day/ });

    // The Sources card opens on channels (rows stored before channels: Referral, or Direct without a
    // referrer); clicking one filters the dashboard by it.
    await expect.poll(() => rowLabels(page, 'Top channels')).toEqual(['Referral', 'Direct']);
    await page.getByRole('table', { name: 'Top channels' }).getByRole('button', { name: 'Direct' }).click();
    await page.waitForURL(/[?&]where\.channel=Direct/);
    expect(await chips(page)).toEqual(['Channel is Direct']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');
    await page.getByRole('button', { name: 'Remove filter: Channel is Direct' }).click();
    await expect.poll(() => where(page)).toEqual([]);
    await expect.poll(() => figure(page, 'Sessions')).toBe('5');

    // Tabs: the Sources card also ranks sources and referrers, the Pages card entry pages (sessions that began there).
    await page.getByRole('tab', { name: 'Referrers' }).click();
    await expect
      .poll(() => rowLabels(page, 'Top referrers'))
      .toEqual(['www.google.com', 'Direct / none', 'news.ycombinator.com']);
    await page.getByRole('tab', { name: 'Entry pages' }).click();
    await expect.poll(() => rowLabels(page, 'Top entry pages')).toEqual(['/', '/pricing', '/blog/hello']);
    expect(await page.getByRole('tab', { name: 'Entry pages' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('tab', { name: 'Sources', exact: true }).click();
    await page.getByRole('tab', { name: 'Pages', exact: true }).click();

    // Germany: every card, the chart and every table follow; the country table itself is no longer clickable.
    await page.getByRole('table', { name: 'Top countries' }).getByRole('button', { name: 'Germany (DE)' }).click();
    await page.waitForURL(/[?&]where\.country=DE/);
    expect(await chips(page)).toEqual(['Country is Germany (DE)']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');
    expect(await figure(page, 'Pageviews')).toBe('6');
    await expect
      .poll(() => chart.locator(`g.dash-chart-day[data-day="${dayAgo(2)}"] title`).textContent())
      .toContain('Sessions 1, Pageviews 1');
    await expect.poll(() => rowLabels(page, 'Top pages')).toEqual(['/pricing', '/', '/blog/hello']);
    await expect.poll(() => rowLabels(page, 'Top sources')).toEqual(['Direct / none', 'www.google.com']);
    // Each card asks on its own: the others may still be loading when the sources have their rows.
    await expect.poll(() => rowLabels(page, 'Top devices')).toEqual(['Desktop']);
    await expect.poll(() => rowLabels(page, 'Top countries')).toEqual(['Germany (DE)']);
    expect(await page.getByRole('table', { name: 'Top countries' }).getByRole('button').count()).toBe(0);

    // A second filter stacks: Germany and Google.
    await page.getByRole('table', { name: 'Top sources' }).getByRole('button', { name: 'www.google.com' }).click();
    await page.waitForURL(/[?&]where\.source=www\.google\.com/);
    expect(where(page)).toEqual(['where.country=DE', 'where.source=www.google.com']);
    expect(await chips(page)).toEqual(['Country is Germany (DE)', 'Source is www.google.com']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');
    expect(await figure(page, 'Pageviews')).toBe('3');
    await expect.poll(() => rowLabels(page, 'Top pages')).toEqual(['/pricing', '/']);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // A reload (or a shared link) shows the same view.
    await page.reload();
    await expect.poll(() => chips(page)).toEqual(['Country is Germany (DE)', 'Source is www.google.com']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');

    // Removing the country chip leaves Google alone: 2 sessions, 5 pageviews; Back brings the country back.
    await page.getByRole('button', { name: 'Remove filter: Country is Germany (DE)' }).click();
    await expect.poll(() => where(page)).toEqual(['where.source=www.google.com']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');
    expect(await figure(page, 'Pageviews')).toBe('5');
    await expect.poll(async () => (await rowLabels(page, 'Top countries')).sort()).toEqual(['France (FR)', 'Germany (DE)']);
    await page.goBack();
    await expect.poll(() => chips(page)).toEqual(['Country is Germany (DE)', 'Source is www.google.com']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');

    // Clear filters, then a row without a value: "Direct / none" filters by no referrer.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => where(page)).toEqual([]);
    await expect.poll(() => figure(page, 'Sessions')).toBe('5');
    // The reload above showed the card's first tab again: Channels.
    await page.getByRole('tab', { name: 'Sources', exact: true }).click();
    await page.getByRole('table', { name: 'Top sources' }).getByRole('button', { name: 'Direct / none' }).click();
    await expect.poll(() => where(page)).toEqual(['where.source=(none)']);
    expect(await chips(page)).toEqual(['Source is Direct / none']);
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');

    // Rows are buttons: reachable and usable from the keyboard.
    await page.getByRole('table', { name: 'Top devices' }).getByRole('button', { name: 'Desktop' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => where(page)).toEqual(['where.source=(none)', 'where.device=desktop']);

    // Filters that match nothing say so, rather than asking for the snippet.
    await page.goto(`${dashboard}?where.country=JP`);
    await page.getByText('Nothing matches these filters in this range').waitFor();

    // A filter the figures cannot be cut by is refused by the API, and the dashboard says why.
    await page.goto(`${dashboard}?where.bogus=1`);
    await page
      .getByRole('alert')
      .getByText(/Filter pageviews by one of/)
      .first()
      .waitFor();

    // Switching lanes drops the filters (Crawlers have their own dimensions).
    await page.goto(`${dashboard}?where.country=DE`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');
    await page.getByRole('button', { name: 'Crawlers', exact: true }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('?lane=crawlers');
    await context.close();
  });
});
