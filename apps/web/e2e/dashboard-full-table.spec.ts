import { insertRows } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { rowLabels, visit } from './support/visits.ts';

const SCREENSHOT = '/tmp/e2e-dashboard-full-table.png';
const name = (k: number) => `/p${String(k).padStart(2, '0')}`;

/** The CSV the download link holds, as lines. */
async function csvLines(page: Page): Promise<string[]> {
  const href = (await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) ?? '';
  return decodeURIComponent(href.slice(href.indexOf(',') + 1))
    .split('\r\n')
    .filter(Boolean);
}

describe('dashboard: a table in full', () => {
  const suite = dashboardSuite();

  it('“see all” opens the table with every count; sorting, search, paging and the CSV follow the API', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Full tables' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Many pages' });
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['analytics:read'],
    });
    // Page /pNN has NN visits of one pageview each: 30 pages, 465 pageviews; Germany has the even pages.
    const rows = Array.from({ length: 30 }, (_, i) => i + 1).flatMap((k) =>
      Array.from({ length: k }, () =>
        visit(siteId, 1, [name(k)], { referrerHost: null, country: k % 2 ? 'FR' : 'DE', device: 'desktop' }),
      ).flat(),
    );
    await insertRows(t.deps.orm, 'pageviews', rows);
    const api = async (q: Record<string, string | number>) => {
      const res = await t.request
        .get(`/v1/sites/${siteId}/stats`)
        .query({ metrics: 'pageviews', by: 'page', days: 7, limit: 25, ...q })
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      return res.body as { rows: { value: string; counts: Record<string, number> }[]; truncated: boolean };
    };

    const { context, page } = await signedInPage(suite, owner.email, 15_000, 1000);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(() => rowLabels(page, 'Top pages')).toHaveLength(10);
    await page.getByRole('link', { name: 'see all pages' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/dashboard/page$`));
    const table = page.getByRole('table', { name: 'All pages' });
    await table.waitFor();

    // Every count of the metric set, ranked by pageviews as the Pages table is; 25 rows a page.
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'Page',
      'Pageviews ↓',
      'Sessions',
      'Visitors',
      'Scroll depth',
      'Time on page',
    ]);
    const first = await api({ sort: 'pageviews' });
    await expect.poll(() => rowLabels(page, 'All pages')).toEqual(first.rows.map((r) => r.value));
    expect(first.rows[0]?.value).toBe('/p30');
    expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    // The CSV holds exactly the rows shown, with the API's figures.
    const csv = await csvLines(page);
    expect(csv[0]).toBe('Page,Pageviews,Sessions,Visitors,Scroll depth,Time on page');
    expect(csv.slice(1)).toEqual(
      first.rows.map((r) =>
        [r.value, r.counts.pageviews, r.counts.sessions, r.counts.visitors, r.counts.scroll_depth, r.counts.time_on_page].join(
          ',',
        ),
      ),
    );
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The next page: the five least viewed pages, and no further page.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/[?&]page=2/);
    const second = await api({ sort: 'pageviews', offset: 25 });
    await expect.poll(() => rowLabels(page, 'All pages')).toEqual(second.rows.map((r) => r.value));
    expect(second.rows.map((r) => r.value)).toEqual(['/p05', '/p04', '/p03', '/p02', '/p01']);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect((await csvLines(page)).slice(1).map((l) => l.split(',')[0])).toEqual(['/p05', '/p04', '/p03', '/p02', '/p01']);

    // Search: pages containing "p1", back on the first page; the total stays every page's.
    await page.getByLabel('Search pages').fill('p1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/[?&]q=p1/);
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
    const searched = await api({ sort: 'pageviews', search: 'p1' });
    await expect.poll(() => rowLabels(page, 'All pages')).toEqual(searched.rows.map((r) => r.value));
    expect(searched.rows).toHaveLength(10);
    await page.getByText('465 pageviews in all').waitFor();

    // Sorting by another count: a header button, kept in the address, announced with aria-sort.
    await page.getByRole('button', { name: 'Visitors' }).click();
    await page.waitForURL(/[?&]sort=visitors/);
    await expect.poll(() => table.locator('th[aria-sort="descending"]').textContent()).toBe('Visitors ↓');

    // The dashboard's filters apply here too, and Back to the dashboard keeps them.
    await page.goto(`${t.url}/sites/${siteId}/dashboard/page?where.country=DE`);
    const germany = await api({ sort: 'pageviews', 'where.country': 'DE' });
    await expect.poll(() => rowLabels(page, 'All pages')).toEqual(germany.rows.map((r) => r.value));
    expect(germany.rows.every((r) => Number(r.value.slice(2)) % 2 === 0)).toBe(true);
    await page.getByRole('link', { name: '← Back to the dashboard' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/dashboard\\?where\\.country=DE$`));

    // A table the lane does not have says which it has.
    await page.goto(`${t.url}/sites/${siteId}/dashboard/bot`);
    await page.getByText(/People has no bot table/).waitFor();
    await context.close();
  });
});
