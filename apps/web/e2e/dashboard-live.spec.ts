import { randomUUID } from 'node:crypto';
import { insertRows, type PageviewRow } from '@us/db';
import { describe, expect, it } from 'vitest';
import { collectSite, postReport } from '../../api/test/support/collect.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage, signInThroughUi } from './support/dashboard.ts';

const SCREENSHOT = '/tmp/e2e-dashboard-live.png';

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);
const view = (siteId: string, at: Date, path: string, extra: Partial<PageviewRow> = {}): PageviewRow => ({
  siteId,
  at,
  pageviewId: `pv-${randomUUID()}`,
  visitor: `v-${randomUUID()}`,
  sessionStart: true,
  lane: 'human',
  path,
  device: 'desktop',
  ...extra,
});

describe('dashboard: who is here now', () => {
  const suite = dashboardSuite();

  it('shows visitors now and the last pageviews, and both follow new pageviews without a reload', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Live workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Launch site' });
    await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Other site' });
    await insertRows(t.deps.orm, 'pageviews', [
      view(siteId, secondsAgo(90), '/pricing', { referrerHost: 'news.ycombinator.com', country: 'DE' }),
      view(siteId, secondsAgo(60), '/', { device: 'mobile' }),
      view(siteId, secondsAgo(20 * 60), '/blog/earlier'),
    ]);

    const { context, page } = await signedInPage(suite, owner.email, 15_000, 1000);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    const now = page.getByTestId('visitors-now');
    await expect.poll(() => now.textContent()).toBe('2 visitors now');
    const list = page.getByRole('table', { name: 'Last pageviews' });
    const paths = () => list.locator('tbody th').allTextContents();
    await expect.poll(paths).toEqual(['/', '/pricing', '/blog/earlier']);
    expect(await list.locator('tbody tr').nth(1).locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['news.ycombinator.com', 'Germany (DE)', 'Desktop', 'People']),
    );

    // A launch: a new visitor arrives. No reload: the same document updates within a few seconds.
    await page.evaluate(() => {
      (globalThis as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await insertRows(t.deps.orm, 'pageviews', [view(siteId, new Date(), '/launch', { country: 'FR' })]);
    await expect.poll(() => now.textContent(), { timeout: 20_000 }).toBe('3 visitors now');
    await expect.poll(paths, { timeout: 20_000 }).toEqual(['/launch', '/', '/pricing', '/blog/earlier']);
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The sites list: each site's visitors now.
    await page.goto(`${t.url}/sites`);
    const row = (name: string) => page.getByRole('table', { name: 'Sites' }).getByRole('row').filter({ hasText: name });
    await expect.poll(() => row('Launch site').getByTestId('site-now').textContent()).toBe('3 now');
    expect(await row('Other site').getByTestId('site-now').textContent()).toBe('0 now');
    // Each site's last week as a sparkline, its figures as its accessible name (4 people in all).
    const line = row('Launch site').getByRole('img', { name: /^People per day on Launch site: / });
    const figures = ((await line.getAttribute('aria-label')) ?? '').split(': ')[1]?.split(', ') ?? [];
    expect(figures).toHaveLength(7);
    expect(figures.reduce((n, f) => n + Number(f.split(' ')[1]), 0)).toBe(4);

    // Signing in again lands on the last dashboard this person opened here, not the account page.
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(new RegExp(`/sites/${siteId}/dashboard$`));
    await page.getByRole('heading', { name: 'Launch site dashboard', level: 1 }).waitFor();
    await context.close();
  });

  it('a new site waits live for its first pageview, says when it arrived and shows its figures', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const site = await collectSite(t, `first-${Math.random().toString(36).slice(2, 10)}.example`);
    const { context, page } = await signedInPage(suite, site.ownerEmail, 15_000, 1000);
    await page.goto(`${t.url}/sites/${site.siteId}/dashboard`);
    const status = page.locator('#install-status');
    await expect.poll(() => status.textContent()).toContain('Waiting for the first pageview…');
    expect(await page.locator('#site-snippet').textContent()).toContain(site.publicKey);

    // The snippet's first report, through the real collect path: the page sees it by itself.
    await postReport(t, site).expect(202);
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toContain('Received: the first page report arrived');
    await expect
      .poll(
        () =>
          page
            .getByRole('list', { name: 'Headline figures' })
            .getByRole('listitem', { name: 'Pageviews', exact: true })
            .locator('.dash-measure-value')
            .textContent(),
        {
          timeout: 20_000,
        },
      )
      .toBe('1');
    await context.close();
  });
});
