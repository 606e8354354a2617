import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { measure, visit } from './support/visits.ts';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();
const where = (page: Page) => new URL(page.url()).searchParams.get('where.country');

/** The Countries card's Map tab: shaded by sessions, named by its figures, and a filter by click or keyboard. */
describe('dashboard: world map', () => {
  const suite = dashboardSuite();

  it('colours the countries that have sessions, names them, and filters by the one clicked', { timeout: 120_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Map workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Map shop' });
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, 1, ['/', '/pricing'], { referrerHost: null, country: 'DE', device: 'desktop' }),
      ...visit(siteId, 2, ['/'], { referrerHost: null, country: 'DE', device: 'mobile' }),
      ...visit(siteId, 3, ['/'], { referrerHost: null, country: 'BR', device: 'desktop' }),
    ]);
    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');
    await page.getByRole('tab', { name: 'Map' }).click();
    const map = page.getByRole('group', { name: /^Sessions by country on a world map/ });
    await map.waitFor();
    expect(await map.getAttribute('aria-label')).toBe('Sessions by country on a world map: Germany (DE) 2, Brazil (BR) 1');
    // Germany is darker than Brazil; countries without sessions are not controls.
    const germany = map.getByRole('button', { name: 'Filter by Germany (DE): 2 sessions' });
    const brazil = map.getByRole('button', { name: 'Filter by Brazil (BR): 1 sessions' });
    const shade = (l: typeof germany) =>
      l.evaluate((el) => Number((el as unknown as { style: { fillOpacity: string } }).style.fillOpacity));
    expect(await shade(germany)).toBeGreaterThan(await shade(brazil));
    expect(await map.getByRole('button').count()).toBe(2);
    expect(await accessibilityProblems(page)).toEqual([]);

    await germany.click();
    await expect.poll(() => where(page)).toBe('DE');
    await expect.poll(() => figure(page, 'Sessions')).toBe('2');
    await page.goBack();
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');
    // From the keyboard: focus Brazil's shape and press Enter.
    await page.getByRole('tab', { name: 'Map' }).click();
    await brazil.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => where(page)).toBe('BR');
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');
    await page.screenshot({ path: '/tmp/e2e-dashboard-map.png', fullPage: true });
    await context.close();
  });
});
