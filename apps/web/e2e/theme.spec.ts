import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { callerFor } from '../../api/test/support/caller.ts';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signInThroughUi } from './support/dashboard.ts';
import { measure, visit } from './support/visits.ts';

/** The relative luminance (0 black … 1 white) of a computed `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  if (r === undefined || g === undefined || b === undefined) throw new Error(`not a colour: ${rgb}`);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Where a failing run's pictures are looked at (the dark pages, one each). */
const SCREENSHOT = (name: string) => `/tmp/e2e-theme-dark-${name}.png`;

type Computed = { getComputedStyle(element: unknown): { stroke: string } };

/** What the page shows: the page background's luminance and the theme on <html>. */
const pageBackground = (page: Page) =>
  page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor').then(luminance);
// Strings evaluated in the page: this project's e2e files are typed without the DOM.
const shownTheme = (page: Page) => page.evaluate<string | undefined>('document.documentElement.dataset.theme');
const themeMenu = (page: Page) => page.getByRole('combobox', { name: 'Theme' });

const sessions = (page: Page) => measure(page, 'Sessions').locator('.dash-measure-value').textContent();
const settled = (page: Page) => expect.poll(() => page.locator('.loading, [aria-busy="true"]').count()).toBe(0);

/**
 * Dark mode: a browser set to dark gets the dark palette on every page (readable: axe's contrast rules
 * pass), before the app's code runs; the header's theme menu overrides the system and is remembered in
 * this browser; System follows the system's setting as it changes.
 */
describe('dashboard: light and dark themes', () => {
  const suite = dashboardSuite();

  it('follows a dark system setting, passes axe in both themes, and remembers the menu choice', {
    timeout: 240_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Night workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Night shop' });
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, 0, ['/', '/pricing'], { referrerHost: 'www.google.com', country: 'DE', device: 'desktop' }),
      ...visit(siteId, 1, ['/blog/hello'], { referrerHost: null, country: 'US', device: 'mobile' }),
      ...visit(siteId, 2, ['/pricing'], { referrerHost: 'news.ycombinator.com', country: 'FR', device: 'desktop' }),
    ]);
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    const { link } = await callerFor(t.deps, { token }).shares.create({ id: siteId, label: 'Board' });

    const context = await suite.browser.newContext({
      viewport: { width: 1280, height: 1000 },
      timezoneId: 'UTC',
      colorScheme: 'dark',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);

    // The sign-in page is already dark, and readable.
    await page.goto(`${t.url}/login`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await shownTheme(page)).toBe('dark');
    expect(await pageBackground(page)).toBeLessThan(0.05);
    expect(await accessibilityProblems(page), '/login').toEqual([]);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // The dashboard: a dark page, its chart drawn from the dark palette, no serious axe problem.
    const dashboard = `${t.url}/sites/${siteId}/dashboard`;
    await page.goto(dashboard);
    await expect.poll(() => sessions(page)).toBe('3');
    await settled(page);
    expect(await themeMenu(page).inputValue()).toBe('system');
    expect(await pageBackground(page)).toBeLessThan(0.05);
    const grid = page.locator('.dash-chart-grid line').first();
    const gridStroke = () => grid.evaluate((line) => (globalThis as unknown as Computed).getComputedStyle(line).stroke);
    expect(luminance(await gridStroke())).toBeLessThan(0.1);
    expect(await accessibilityProblems(page), 'dashboard, dark').toEqual([]);
    await page.screenshot({ path: SCREENSHOT('dashboard'), fullPage: true });

    // Every other kind of page reads the same palette, and is as readable.
    for (const path of [
      `/sites/${siteId}`,
      `/sites/${siteId}/goals`,
      `/sites/${siteId}/funnels`,
      `/sites/${siteId}/journeys`,
      `/sites/${siteId}/protection`,
      '/sites',
      '/account',
      '/tokens',
    ]) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      expect(await pageBackground(page), path).toBeLessThan(0.05);
      expect(await accessibilityProblems(page), path).toEqual([]);
      await page.screenshot({ path: SCREENSHOT(path.replace(siteId, 'site').replaceAll('/', '-')), fullPage: true });
    }

    // Light from the menu, at once, and still light after a reload (the choice lives in localStorage).
    await page.goto(dashboard);
    await settled(page);
    await themeMenu(page).selectOption({ label: 'Light' });
    expect(await shownTheme(page)).toBe('light');
    expect(await pageBackground(page)).toBeGreaterThan(0.8);
    expect(luminance(await gridStroke())).toBeGreaterThan(0.7);
    await page.reload();
    await settled(page);
    expect(await shownTheme(page)).toBe('light');
    expect(await pageBackground(page)).toBeGreaterThan(0.8);
    expect(await themeMenu(page).inputValue()).toBe('light');
    expect(await accessibilityProblems(page), 'dashboard, light').toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem('unseen-stats.theme'))).toBe('light');

    // The theme is on the page before the app's code runs (no flash of the other theme): with the app's
    // script withheld, the page is already in the chosen theme.
    await themeMenu(page).selectOption({ label: 'Dark' });
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.reload();
    expect(await shownTheme(page)).toBe('dark');
    expect(await pageBackground(page)).toBeLessThan(0.05);
    await page.unroute(/\/assets\/.*\.js$/);

    // System again: the page follows the system's setting, also when it changes while the page is open.
    await page.reload();
    await settled(page);
    await themeMenu(page).selectOption({ label: 'System' });
    expect(await page.evaluate(() => localStorage.getItem('unseen-stats.theme'))).toBeNull();
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => shownTheme(page)).toBe('light');
    expect(await pageBackground(page)).toBeGreaterThan(0.8);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => shownTheme(page)).toBe('dark');
    expect(await pageBackground(page)).toBeLessThan(0.05);

    // A shared dashboard (no account) has the same menu and palette.
    await page.goto(link.url.replace(t.deps.urls.app, t.url));
    await expect.poll(() => sessions(page)).toBe('3');
    await settled(page);
    expect(await pageBackground(page)).toBeLessThan(0.05);
    expect(await accessibilityProblems(page), 'shared dashboard, dark').toEqual([]);
    await themeMenu(page).selectOption({ label: 'Light' });
    expect(await pageBackground(page)).toBeGreaterThan(0.8);

    await context.close();
  });
});
