import { insertRows, type PageviewRow } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { measure, rowLabels, visit } from './support/visits.ts';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();

/** The Properties card (issue 40 item 2): a key picked from those the site sent, its values, a value as a filter. */
describe('dashboard: the Properties card', () => {
  const suite = dashboardSuite();

  it('lists a key’s values and filters the dashboard by one', { timeout: 120_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Properties workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    const withProps = (rows: PageviewRow[], props: Record<string, string>) => rows.map((r) => ({ ...r, props }));
    const direct = { referrerHost: null, country: 'DE', device: 'desktop' } as const;
    await insertRows(t.deps.orm, 'pageviews', [
      ...withProps(visit(siteId, 1, ['/', '/pricing'], direct), { plan: 'pro', author: 'Jane' }),
      ...withProps(visit(siteId, 1, ['/'], direct), { plan: 'free' }),
      ...visit(siteId, 1, ['/blog'], direct),
    ]);

    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => figure(page, 'Sessions')).toBe('3');

    // The most used key first (plan: 3 pageviews, author: 2), its values by pageviews.
    const picker = page.getByRole('combobox', { name: 'Property' });
    await expect.poll(() => picker.inputValue()).toBe('plan');
    await expect.poll(() => rowLabels(page, 'Pageviews by property plan')).toEqual(['pro', 'free', '(none)']);
    await picker.selectOption('author');
    await expect.poll(() => rowLabels(page, 'Pageviews by property author')).toEqual(['Jane', '(none)']);
    expect(await accessibilityProblems(page)).toEqual([]);

    // A value filters the whole dashboard (where.prop:<key>), kept in the address.
    await picker.selectOption('plan');
    await page.getByRole('table', { name: 'Pageviews by property plan' }).getByRole('button', { name: 'pro' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('where.prop:plan')).toBe('pro');
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');
    // The top tables take the filter too: the visit with plan pro began on / and went on to /pricing.
    await expect.poll(async () => (await rowLabels(page, 'Top pages')).sort()).toEqual(['/', '/pricing']);
    expect(await page.getByText('Not filtered by prop:plan').count()).toBe(0);
    // Segments keep the catalogue's dimensions: the form says so instead of offering a save the API refuses.
    const segments = page.getByRole('region', { name: 'Segments' });
    await segments.getByText(/take off the property filter prop:plan/).waitFor();
    expect(await segments.getByRole('button', { name: 'Save as segment' }).count()).toBe(0);
    await page.reload();
    await expect.poll(() => figure(page, 'Sessions')).toBe('1');
    await page.screenshot({ path: '/tmp/e2e-dashboard-properties.png', fullPage: true });
    await context.close();
  });
});
