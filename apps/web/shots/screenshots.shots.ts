// The README's pictures: a site with 30 days of generated traffic (the demo generator), signed in through
// the dashboard, each main view written to docs/screenshots/<name>.png at 1280 pixels wide.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { generateTraffic } from '../../api/scripts/seed/generate.ts';
import { runDueImports } from '../../api/src/features/imports/index.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from '../e2e/support/dashboard.ts';

const OUT = path.resolve(import.meta.dirname, '../../../docs/screenshots');

/** Waits until nothing on the page is loading, then writes the picture (the whole page unless `fold`). */
async function shoot(page: Page, name: string, fold = false) {
  await expect.poll(() => page.locator('.loading, [aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: !fold });
}

describe('screenshots', () => {
  const suite = dashboardSuite();

  it('writes the pictures of the main views', async () => {
    const { t } = suite;
    mkdirSync(OUT, { recursive: true });
    const owner = await createUser(t.deps, { workspaceName: 'Trail Co.', email: 'ana@trailshop.example' });
    const em = () => t.deps.orm.em.fork();
    const { siteId } = await createSite(em(), { workspace: owner.workspace.id, name: 'trailshop.example' });
    await createSite(em(), { workspace: owner.workspace.id, name: 'blog.trailshop.example' });
    await em().getConnection().execute(`update sites set last_seen_at = now() where id = ?`, [siteId]);
    await generateTraffic(t.deps.orm, { siteId, timezone: 'UTC', days: 30, pageviews: 24_000, jobs: 1, seed: 'screenshots' });
    // A few people on the site right now, for the live figures.
    const now = Date.now();
    await insertRows(
      t.deps.orm,
      'pageviews',
      ['/', '/products/trail-runner-2', '/pricing', '/blog/marathon-training-plan'].map((p, i) => ({
        siteId,
        at: new Date(now - i * 40_000),
        pageviewId: `pv-${randomUUID()}`,
        visitor: `now-${i}`,
        sessionStart: true,
        lane: 'human' as const,
        path: p,
        referrerHost: i % 2 ? 'www.google.com' : null,
        country: ['DE', 'US', 'FR', 'GB'][i] ?? null,
        device: i % 2 ? 'mobile' : 'desktop',
      })),
    );

    const { context, page } = await signedInPage(suite, owner.email, 30_000, 900);
    const dashboard = `${t.url}/sites/${siteId}/dashboard`;
    await page.goto(`${dashboard}?range=30d`);
    await page.getByRole('img', { name: /^Sessions and pageviews per day/ }).waitFor();
    await shoot(page, 'dashboard');

    await page.getByRole('table', { name: 'Top countries' }).getByRole('button').first().click();
    await page.getByRole('list', { name: 'Filters' }).waitFor();
    await shoot(page, 'dashboard-filtered');

    await page.goto(`${dashboard}?range=30d`);
    await page.getByRole('tab', { name: 'Map' }).click();
    const map = page.getByRole('group', { name: /^Sessions by country on a world map/ });
    await map.waitFor();
    await page
      .locator('.dash-top-card')
      .filter({ has: map })
      .screenshot({ path: path.join(OUT, 'map.png') });

    await page.goto(`${dashboard}/page?range=30d`);
    await page.getByRole('table', { name: 'All pages' }).waitFor();
    await shoot(page, 'full-table');

    await page.goto(`${dashboard}?range=30d&lane=crawlers`);
    await page.getByRole('img', { name: /^Crawler requests per day/ }).waitFor();
    await shoot(page, 'crawlers');

    // What changed? this week against the one before, its card alone.
    await page.goto(`${dashboard}?range=7d`);
    const changes = page.locator('.card').filter({ has: page.getByRole('heading', { name: 'What changed?', exact: true }) });
    await changes.getByRole('button', { name: 'Explain the change' }).click();
    await changes.getByRole('list', { name: 'What moved most' }).waitFor();
    await changes.screenshot({ path: path.join(OUT, 'what-changed.png') });

    // The Protection page on its Decisions tab, the last 30 days of what the gate did.
    await page.goto(`${t.url}/sites/${siteId}/protection?tab=decisions`);
    await page.getByLabel('Period').selectOption('30');
    await page.getByRole('table', { name: 'Decisions by reason' }).waitFor();
    await shoot(page, 'protection');

    // The dashboard in its dark theme, as a browser set to dark shows it (the theme menu left on System).
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${dashboard}?range=30d`);
    await page.getByRole('img', { name: /^Sessions and pageviews per day/ }).waitFor();
    await shoot(page, 'dashboard-dark', true);
    await page.emulateMedia({ colorScheme: 'light' });

    await page.goto(`${t.url}/sites`);
    await page.getByRole('table', { name: 'Sites' }).getByRole('img').first().waitFor();
    await shoot(page, 'sites');

    await page.goto(`${t.url}/sites/${siteId}/journeys`);
    await page.waitForLoadState('networkidle');
    await shoot(page, 'journeys', true);

    // A funnel added through its form, then its bars over 30 days.
    await page.goto(`${t.url}/sites/${siteId}/funnels?days=30`);
    const funnel = page.getByRole('form', { name: 'Add a funnel' });
    await funnel.getByLabel('Name', { exact: true }).fill('Purchase');
    const steps: [type: 'page' | 'event', match: string][] = [
      ['page', '/category/*'],
      ['page', '/cart'],
      ['page', '/checkout'],
      ['event', 'purchase'],
    ];
    for (const [i, [type, match]] of steps.entries()) {
      if (i >= 2) await funnel.getByRole('button', { name: 'Add a step' }).click();
      await funnel.getByLabel(`Step ${i + 1} type`, { exact: true }).selectOption(type);
      await funnel.getByLabel(`Step ${i + 1} ${type === 'page' ? 'path' : 'event name'}`, { exact: true }).fill(match);
    }
    await funnel.getByRole('button', { name: 'Add funnel' }).click();
    await page.getByTestId('funnel-chart').waitFor();
    await shoot(page, 'funnels', true);

    // Sharing: a password-protected link and a weekly report on the site page, then what the link opens.
    await page.goto(`${t.url}/sites/${siteId}`);
    const share = page.getByRole('form', { name: 'Create a shared link' });
    await share.getByLabel('Label').fill('Board');
    await share.getByLabel('Password (optional)').fill('plum-harbour-lantern-7');
    await share.getByRole('button', { name: 'Create shared link' }).click();
    const links = page.getByRole('table', { name: 'Shared links' });
    await links.getByRole('rowheader', { name: 'Board' }).waitFor();
    const report = page.getByRole('form', { name: 'Add an e-mail report' });
    await report.getByLabel('E-mail address').fill('board@trailshop.example');
    await report.getByRole('button', { name: 'Add report' }).click();
    await page.getByRole('table', { name: 'E-mail reports' }).getByRole('rowheader').first().waitFor();
    // The two cards, one above the other, as one picture.
    const card = (name: string) => page.locator('.card').filter({ has: page.getByRole('heading', { name, exact: true }) });
    const top = await card('Shared links').boundingBox();
    const bottom = await card('E-mail reports').boundingBox();
    if (!top || !bottom) throw new Error('the sharing cards are not on the page');
    // Bounding boxes are in the viewport; a full-page clip is in the page.
    const scrolled = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    const clip = { x: top.x, y: top.y + scrolled, width: top.width, height: bottom.y + bottom.height - top.y };
    await page.screenshot({ path: path.join(OUT, 'sharing.png'), fullPage: true, clip });
    const url = (await links.locator('code.share-url').first().textContent()) ?? '';
    const guest = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const viewer = await guest.newPage();
    await viewer.goto(url);
    await viewer.getByLabel('Password', { exact: true }).fill('plum-harbour-lantern-7');
    await viewer.getByRole('button', { name: 'Open the dashboard' }).click();
    await viewer.getByRole('img', { name: /^Sessions and pageviews per day/ }).waitFor();
    await shoot(viewer, 'shared', true);
    await guest.close();

    // Alerts: a spike rule told to an address and a webhook, its card on the site page.
    await page.goto(`${t.url}/sites/${siteId}`);
    const alert = page.getByRole('form', { name: 'Add an alert' });
    await alert.getByLabel('By at least (%)').fill('50');
    await alert.getByLabel('E-mail addresses').fill('oncall@trailshop.example');
    await alert.getByLabel('Webhook URL (optional)').fill('https://hooks.trailshop.example/unseen');
    await alert.getByRole('button', { name: 'Add alert' }).click();
    await page.getByRole('table', { name: 'Alerts' }).getByRole('rowheader').first().waitFor();
    await card('Alerts').screenshot({ path: path.join(OUT, 'alerts.png') });

    // Imports: Plausible's export files uploaded through the page, read by the imports job, the import done.
    await page.goto(`${t.url}/sites/${siteId}/imports`);
    await page.getByLabel('Plausible CSV export').check();
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('heading', { name: 'New Plausible CSV export import' }).waitFor();
    const plausible = path.resolve(import.meta.dirname, '../../api/test/features/imports/fixtures/plausible');
    const csvs = readdirSync(plausible).filter((f) => f.endsWith('.csv'));
    await page.getByLabel('CSV files', { exact: true }).setInputFiles(csvs.map((f) => path.join(plausible, f)));
    await page.getByText(`${csvs.length} of ${csvs.length} files stored`).waitFor();
    await page.getByRole('button', { name: 'Start the import' }).click();
    const imported = page.getByRole('list', { name: 'Imports' }).getByRole('listitem').first();
    await expect.poll(() => imported.getAttribute('data-status')).toBe('queued');
    await runDueImports(t.deps.orm, { siteIds: [siteId] });
    await expect.poll(() => imported.getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    await shoot(page, 'imports');
    await context.close();
  });
});
