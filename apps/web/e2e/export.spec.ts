import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { insertRows, pv } from '../../api/test/support/stats-fixture.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe('export and billing pages in a real browser', () => {
  const suite = dashboardSuite();

  it('exports the site: five links that download without signing in, a range refused by field, then the hourly limit', {
    timeout: 120_000,
  }, async () => {
    const { t, browser } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Export workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    await insertRows(t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${yesterday}T10:15:00Z`), { path: '/a' }),
      pv(siteId, new Date(`${yesterday}T10:45:00Z`), { path: '/b' }),
      pv(siteId, new Date(`${yesterday}T13:05:00Z`), { path: '/c' }),
    ]);

    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT);

    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Export', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/export$`));
    await page.getByRole('heading', { name: 'Shop export', level: 1 }).waitFor();
    // Every other page of the site is one link away.
    expect(await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Journeys' }).count()).toBe(1);

    // A range the wrong way round is refused under its field.
    await page.getByLabel('Raw records from (optional)').fill('2026-11-20');
    await page.getByLabel('Raw records to (optional)').fill('2026-11-10');
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByText('Give a from day on or before to').waitFor();
    await page.getByLabel('Raw records from (optional)').fill('');
    await page.getByLabel('Raw records to (optional)').fill('');
    await page.getByRole('button', { name: 'Export' }).click();

    const files = page.getByRole('list', { name: 'Export files' });
    await files.getByRole('link').first().waitFor();
    expect(await files.getByRole('link').allTextContents()).toEqual([
      'settings.json',
      'site-store.ndjson',
      'rollups.ndjson',
      'archive.json',
      'manifest.json',
    ]);
    expect(await page.getByTestId('export-archive').textContent()).toContain('2 raw-record files with 3 records');
    await page.screenshot({ path: '/tmp/e2e-export.png', fullPage: true });

    // The links work without the session: fetched from a fresh context with no cookies.
    const stranger = await browser.newContext();
    const settingsUrl = (await files.getByRole('link', { name: 'settings.json' }).getAttribute('href')) as string;
    const settings = await stranger.request.get(settingsUrl);
    expect(settings.status()).toBe(200);
    expect(await settings.json()).toMatchObject({ id: siteId, name: 'Shop' });
    const archiveUrl = (await files.getByRole('link', { name: 'archive.json' }).getAttribute('href')) as string;
    const archive = await (await stranger.request.get(archiveUrl)).json();
    expect(archive.files.map((f: { records: number }) => f.records)).toEqual([2, 1]);
    await stranger.close();

    // Four more exports are allowed this hour; the sixth is refused with what to do.
    for (let i = 0; i < 4; i++) {
      await page.getByRole('button', { name: 'Export' }).click();
      await page.getByRole('button', { name: 'Export' }).and(page.locator(':not([disabled])')).waitFor();
    }
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByText(/One site allows 5 exports an hour: try again in \d+ minutes/).waitFor();

    // The billing page the allowance notices link to: plan, usage against allowances, the plans.
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await page.waitForURL(/\/billing$/);
    await page.getByRole('heading', { name: 'Plan: Free' }).waitFor();
    await page.getByText('No payment provider is set up on this server').waitFor();
    expect(await page.getByTestId('billing-usage').textContent()).toContain('Sites1 of 5');
    expect(await page.getByRole('table', { name: 'Plans' }).locator('tbody tr').count()).toBe(4);
    await page.screenshot({ path: '/tmp/e2e-billing.png', fullPage: true });
    await context.close();
  });
});
