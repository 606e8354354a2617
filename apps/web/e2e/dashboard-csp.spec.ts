import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { callerFor } from '../../api/test/support/caller.ts';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signInThroughUi } from './support/dashboard.ts';
import { recordPageProblems } from './support/page-problems.ts';
import { measure, visit } from './support/visits.ts';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();

/**
 * The built dashboard under its own Content-Security-Policy (no inline script, no eval, no inline
 * style): page after page, with figures, charts and the map drawn, the browser reports no violation.
 */
describe('dashboard: runs under its Content-Security-Policy', () => {
  const suite = dashboardSuite();

  it('shows every kind of page without a CSP violation or an uncaught error', { timeout: 180_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'CSP workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'CSP shop' });
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, 1, ['/', '/pricing', '/signup'], { referrerHost: 'news.example', country: 'DE', device: 'desktop' }),
      ...visit(siteId, 2, ['/', '/pricing'], { referrerHost: null, country: 'BR', device: 'mobile' }),
      ...visit(siteId, 3, ['/blog'], { referrerHost: null, country: 'FR', device: 'desktop' }),
    ]);
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    const { link } = await callerFor(t.deps, { token }).shares.create({ id: siteId, label: 'Board' });

    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const problems = await recordPageProblems(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const first = await page.goto(`${t.url}/login`);
    const csp = first?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // The site's dashboard with its figures, chart and world map.
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');
    await page.getByRole('tab', { name: 'Map' }).click();
    await page.getByRole('group', { name: /^Sessions by country on a world map/ }).waitFor();
    // Every other kind of page, each until its heading shows.
    for (const [path, heading] of [
      [`/sites/${siteId}/journeys`, 'CSP shop journeys'],
      [`/sites/${siteId}/goals`, 'CSP shop goals'],
      [`/sites/${siteId}/protection`, 'CSP shop protection'],
      [`/sites/${siteId}/export`, 'CSP shop export'],
      [`/sites/${siteId}`, 'CSP shop'],
      ['/tokens', 'API tokens'],
      ['/members', 'Members'],
      ['/account', 'Your account'],
      ['/billing', 'Billing'],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    }
    // A shared view, as whoever holds the link sees it.
    const viewer = await context.newPage();
    await viewer.goto(link.url.replace(t.deps.urls.app, t.url));
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('3');

    expect(problems.cspViolations).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    await context.close();
  });
});
