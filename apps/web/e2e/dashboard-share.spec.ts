import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { measure, rowLabels, visit } from './support/visits.ts';

const SCREENSHOT = '/tmp/e2e-dashboard-share.png';

const figure = (page: Page, label: string) => measure(page, label).locator('.dash-measure-value').textContent();

/** What a call of the shared view answers when it asks for more than figures (read from inside the page). */
async function shareViewAsks(page: Page, path: string, input: unknown): Promise<number> {
  return page.evaluate(
    async ({ path, input }) => {
      const g = globalThis as unknown as {
        sessionStorage: { key(i: number): string | null; getItem(k: string): string | null; length: number };
        fetch: (url: string, init: unknown) => Promise<{ status: number }>;
      };
      let view = '';
      for (let i = 0; i < g.sessionStorage.length; i++) {
        const k = g.sessionStorage.key(i);
        if (k?.startsWith('us-share:')) view = JSON.parse(g.sessionStorage.getItem(k) ?? '{}').view;
      }
      const url = input === undefined ? `/trpc/${path}` : `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;
      return (await g.fetch(url, { headers: { 'X-Share-View': view } })).status;
    },
    { path, input },
  );
}

/** A site owner shares the dashboard; someone without an account opens it, filters it and is refused the rest. */
describe('dashboard: a shared link', () => {
  const suite = dashboardSuite();

  it('opens read-only behind its password, filters and drills down like the real one, refuses settings, and stops when revoked', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Share workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shared shop' });
    await insertRows(t.deps.orm, 'pageviews', [
      ...visit(siteId, 1, ['/', '/pricing'], { referrerHost: 'www.google.com', country: 'DE', device: 'desktop' }),
      ...visit(siteId, 2, ['/pricing'], { referrerHost: null, country: 'DE', device: 'mobile' }),
      ...visit(siteId, 3, ['/blog/hello', '/'], { referrerHost: null, country: 'FR', device: 'desktop' }),
    ]);

    // The owner creates a link with a password on the site page; the list shows its address.
    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}`);
    const form = page.getByRole('form', { name: 'Create a shared link' });
    await form.getByLabel('Label').fill('Board');
    await form.getByLabel('Password (optional)').fill('plum-harbour-lantern-7');
    await form.getByRole('button', { name: 'Create shared link' }).click();
    const links = page.getByRole('table', { name: 'Shared links' });
    await links.getByRole('rowheader', { name: 'Board' }).waitFor();
    const url = (await links.locator('code.share-url').first().textContent()) ?? '';
    expect(url).toMatch(new RegExp(`^${t.url}/share/shr_[A-Za-z0-9_-]{32}$`));

    // Someone with no account opens it: the password first; a wrong one is said under the field.
    const guest = await suite.browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
    const viewer = await guest.newPage();
    viewer.setDefaultTimeout(15_000);
    await viewer.goto(url);
    const password = viewer.getByLabel('Password', { exact: true });
    await password.fill('not-the-password');
    await viewer.getByRole('button', { name: 'Open the dashboard' }).click();
    await viewer.getByText('Wrong password: check it with whoever shared the link').waitFor();
    await password.fill('plum-harbour-lantern-7');
    await viewer.getByRole('button', { name: 'Open the dashboard' }).click();

    // The same figures as the owner's dashboard, read-only: no navigation, no settings.
    await viewer.getByRole('heading', { name: 'Shared shop dashboard' }).waitFor();
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('3');
    expect(await figure(viewer, 'Pageviews')).toBe('5');
    await expect.poll(() => rowLabels(viewer, 'Top countries')).toEqual(['Germany (DE)', 'France (FR)']);
    await viewer.getByText('Shared dashboard · read-only').waitFor();
    expect(await viewer.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await viewer.getByRole('navigation', { name: 'Dashboard' }).count()).toBe(0);
    expect(await accessibilityProblems(viewer)).toEqual([]);

    // Filters by clicking, kept in the shared address.
    await viewer.getByRole('table', { name: 'Top countries' }).getByRole('button', { name: 'Germany (DE)' }).click();
    await viewer.waitForURL(/\/share\/shr_[^/?]+\?.*where\.country=DE/);
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('2');
    await viewer.screenshot({ path: SCREENSHOT, fullPage: true });

    // A table in full stays inside the shared view; a reload does not ask for the password again.
    await viewer.getByRole('link', { name: 'Every count of pages' }).click();
    await viewer.waitForURL(/\/share\/shr_[^/]+\/page\?/);
    await expect.poll(() => rowLabels(viewer, 'All pages')).toEqual(['/pricing', '/']);
    await viewer.reload();
    await expect.poll(() => rowLabels(viewer, 'All pages')).toEqual(['/pricing', '/']);
    await viewer.getByRole('link', { name: '← Back to the dashboard' }).click();
    await viewer.waitForURL(/\/share\/shr_[^/?]+\?/);
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('2');

    // The view reads figures and nothing else: the site's settings, keys and links are refused.
    expect(await shareViewAsks(viewer, 'sites.get', { id: siteId })).toBe(403);
    expect(await shareViewAsks(viewer, 'siteKeys.list', { id: siteId })).toBe(403);
    expect(await shareViewAsks(viewer, 'shares.list', { id: siteId })).toBe(403);
    expect(await shareViewAsks(viewer, 'me.get', undefined)).toBe(403);
    // …and the dashboard's own site page asks a stranger to sign in.
    await viewer.goto(`${t.url}/sites/${siteId}`);
    await viewer.waitForURL(/\/login/);

    // The owner revokes it: the open view stops at its next call and says so.
    await viewer.goto(url);
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('3');
    await page.getByRole('button', { name: 'Revoke the link Board' }).click();
    await page.getByRole('button', { name: 'Revoke link' }).click();
    await page.getByText('No shared links yet.').waitFor();
    await viewer.reload();
    await viewer.getByText('This shared link does not exist or was revoked').waitFor();

    // A link without a password opens at once.
    await form.getByLabel('Label').fill('Public');
    await form.getByRole('button', { name: 'Create shared link' }).click();
    await links.getByRole('rowheader', { name: 'Public' }).waitFor();
    const open = (await links.locator('code.share-url').first().textContent()) ?? '';
    await viewer.goto(open);
    await expect.poll(() => figure(viewer, 'Sessions')).toBe('3');
    await guest.close();
    await context.close();
  });
});
