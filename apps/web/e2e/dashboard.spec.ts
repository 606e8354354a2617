import { insertRows, type RequestRow } from '@us/db';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signInThroughUi } from './support/dashboard.ts';
import { at, dayAgo, measure, rowLabels, visit } from './support/visits.ts';

const SCREENSHOT = '/tmp/e2e-dashboard.png';
const CRAWLERS_SCREENSHOT = '/tmp/e2e-dashboard-crawlers.png';
const PHONE_SCREENSHOT = '/tmp/e2e-dashboard-phone.png';
const UI_TIMEOUT = 15_000;

function crawl(siteId: string, daysAgo: number, botName: string, botCategory: string, path: string, status = 200): RequestRow {
  return {
    siteId,
    at: at(daysAgo, 30),
    method: 'GET',
    path,
    status,
    durationMs: 12,
    lane: 'bot',
    kind: 'verified-bot',
    botName,
    botCategory,
    verified: true,
    country: 'US',
    asn: 15169,
    asOrg: botName === 'GPTBot' ? 'Microsoft Corporation' : 'Google LLC',
  };
}

describe('dashboard: a site’s figures in a real browser', () => {
  const suite = dashboardSuite();

  it('shows the summary, the daily chart and top tables; lanes, range and compare live in the address', {
    timeout: 180_000,
  }, async () => {
    const { t, browser } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Stats workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Stats shop' });
    const { siteId: emptyId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Quiet blog' });

    // People in the last 7 days: 5 sessions, 10 pageviews; pages by pageviews /pricing 5, / 3, /blog/hello 2.
    // Google's visits are stored as intake stores them now (source and channel); the others as before channels.
    const google = { referrerHost: 'www.google.com', source: 'Google', channel: 'Organic Search' };
    const pageviews = [
      ...visit(siteId, 1, ['/', '/pricing', '/pricing'], { ...google, country: 'DE', device: 'desktop' }),
      ...visit(siteId, 2, ['/pricing', '/blog/hello'], { referrerHost: 'news.ycombinator.com', country: 'US', device: 'mobile' }),
      ...visit(siteId, 2, ['/pricing'], { referrerHost: null, country: 'DE', device: 'desktop' }),
      ...visit(siteId, 4, ['/', '/pricing'], { ...google, country: 'FR', device: 'mobile' }),
      ...visit(siteId, 5, ['/blog/hello', '/'], { referrerHost: null, country: 'DE', device: 'desktop' }),
      // The week before: one session, so there is a previous period to compare with.
      ...visit(siteId, 8, ['/'], { referrerHost: null, country: 'DE', device: 'desktop' }),
      // Internal traffic is its own lane, never among People's pages.
      ...visit(siteId, 1, ['/admin', '/admin/orders'], {
        referrerHost: null,
        country: 'DE',
        device: 'desktop',
        lane: 'internal',
      }),
    ];
    await insertRows(t.deps.orm, 'pageviews', pageviews);
    // Crawlers: Googlebot 4 requests, GPTBot 2, bingbot 1.
    await insertRows(t.deps.orm, 'requests', [
      crawl(siteId, 1, 'Googlebot', 'search', '/'),
      crawl(siteId, 2, 'Googlebot', 'search', '/pricing'),
      crawl(siteId, 3, 'Googlebot', 'search', '/robots.txt'),
      crawl(siteId, 3, 'Googlebot', 'search', '/old', 404),
      crawl(siteId, 1, 'GPTBot', 'ai', '/'),
      crawl(siteId, 2, 'GPTBot', 'ai', '/blog/hello'),
      crawl(siteId, 6, 'bingbot', 'search', '/robots.txt'),
      // Long before: a previous period for the crawler chart to compare with.
      crawl(siteId, 40, 'Googlebot', 'search', '/'),
    ]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // From the site list to the dashboard.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sites' }).click();
    await page.getByRole('link', { name: 'Dashboard of Stats shop' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/dashboard$`));
    await page.getByRole('heading', { name: 'Stats shop dashboard', level: 1 }).waitFor();

    // Headline figures of People, compared with the week before (1 session then: +400%, good).
    await expect.poll(() => measure(page, 'Sessions').locator('.dash-measure-value').textContent()).toBe('5');
    expect(await measure(page, 'Pageviews').locator('.dash-measure-value').textContent()).toBe('10');
    expect(await measure(page, 'Sessions').locator('.dash-measure-change').textContent()).toContain('+400%');
    expect(await measure(page, 'Sessions').getAttribute('class')).toContain('dash-tone-good');
    expect(await measure(page, 'Sessions').locator('.dash-measure-change').getAttribute('title')).toMatch(
      /Previous period.*: 1$/,
    );

    // The chart: one column and one point per line per day of the 7, the previous period dashed.
    const chart = page.getByRole('img', { name: /^Sessions and pageviews per day/ });
    await chart.waitFor();
    expect(await chart.locator('g.dash-chart-day').count()).toBe(7);
    expect(await chart.locator('circle.dash-chart-point').count()).toBe(14);
    expect(await chart.locator('path.dash-chart-previous').count()).toBe(2);
    const yesterday = chart.locator(`g.dash-chart-day[data-day="${dayAgo(1)}"] title`);
    expect(await yesterday.textContent()).toContain('Sessions 1, Pageviews 3');
    // Hovering a day shows its figures.
    const box = await chart.boundingBox();
    if (!box) throw new Error('the chart has no box');
    await page.mouse.move(box.x + box.width - 20, box.y + box.height / 2);
    await page.getByTestId('chart-tip').waitFor();

    // Top tables: pages by pageviews, in order; internal pages are not People's.
    await expect.poll(() => rowLabels(page, 'Top pages')).toEqual(['/pricing', '/', '/blog/hello']);
    // The Sources card opens on channels; rows stored before channels read Direct or Referral.
    await expect
      .poll(async () => (await rowLabels(page, 'Top channels')).sort())
      .toEqual(['Direct', 'Organic Search', 'Referral']);
    await page.getByRole('tab', { name: 'Sources', exact: true }).click();
    await expect.poll(async () => (await rowLabels(page, 'Top sources'))[0]).toBe('Google');
    // Each card asks on its own: wait for each one's rows.
    await expect.poll(() => rowLabels(page, 'Top devices')).toEqual(['Desktop', 'Mobile']);
    await expect.poll(async () => (await rowLabels(page, 'Top countries'))[0]).toMatch(/\(DE\)$/);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // On a phone the chart is drawn at the width it has.
    const wide = Number(await chart.getAttribute('width'));
    await page.setViewportSize({ width: 400, height: 900 });
    await expect.poll(async () => Number(await chart.getAttribute('width'))).toBeLessThan(400);
    expect(wide).toBeGreaterThan(600);
    await page.screenshot({ path: PHONE_SCREENSHOT, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 1000 });

    // Crawlers: requests per day, ranked bots, and the DB-IP credit beside the networks.
    await page.getByRole('button', { name: 'Crawlers', exact: true }).click();
    await page.waitForURL(/[?&]lane=crawlers/);
    await expect.poll(() => rowLabels(page, 'Top bots')).toEqual(['Googlebot', 'GPTBot', 'bingbot']);
    await expect.poll(() => measure(page, 'Requests').locator('.dash-measure-value').textContent()).toBe('7');
    expect(await measure(page, 'Crawlers seen').locator('.dash-measure-value').textContent()).toBe('3');
    const crawlerChart = page.getByRole('img', { name: /^Crawler requests per day/ });
    expect(await crawlerChart.locator('circle.dash-chart-point').count()).toBe(7);
    await expect.poll(() => rowLabels(page, 'Top status codes')).toEqual(['200', '404']);
    await expect.poll(() => rowLabels(page, 'Top networks')).toEqual(['Google LLC', 'Microsoft Corporation']);
    const credit = page.locator('[data-dimension="network"] .dash-attribution');
    expect(await credit.textContent()).toContain('IP Geolocation by DB-IP');
    expect(await credit.locator('a').getAttribute('href')).toBe('https://db-ip.com');
    await page.screenshot({ path: CRAWLERS_SCREENSHOT, fullPage: true });

    // 30 days, then a reload: the lane and the range stay.
    await page.getByLabel('Range').selectOption('30d');
    await page.waitForURL(/[?&]range=30d/);
    await expect.poll(() => crawlerChart.locator('g.dash-chart-day').count()).toBe(30);
    await page.reload();
    await page.getByRole('heading', { name: 'Stats shop dashboard', level: 1 }).waitFor();
    expect(await page.getByLabel('Range').inputValue()).toBe('30d');
    expect(await page.getByRole('button', { name: 'Crawlers', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => crawlerChart.locator('g.dash-chart-day').count()).toBe(30);
    await expect.poll(() => rowLabels(page, 'Top bots')).toEqual(['Googlebot', 'GPTBot', 'bingbot']);

    // 12 months: older days come from daily rollups; a column per ISO week by default (53 or 54 of them).
    await page.getByLabel('Range').selectOption('12m');
    const weekly = page.getByRole('img', { name: /^Crawler requests per week/ });
    await expect.poll(() => weekly.locator('g.dash-chart-day').count()).toBeGreaterThanOrEqual(53);
    expect(await weekly.locator('g.dash-chart-day').count()).toBeLessThanOrEqual(54);
    await expect.poll(() => rowLabels(page, 'Top bots')).toEqual(['Googlebot', 'GPTBot', 'bingbot']);
    await page.goBack();
    await page.waitForURL(/[?&]range=30d/);
    await expect.poll(() => crawlerChart.locator('g.dash-chart-day').count()).toBe(30);

    // Compare off: no dashed line, and that too is in the address.
    expect(await crawlerChart.locator('path.dash-chart-previous').count()).toBe(1);
    await page.getByLabel('Compare with the previous period').uncheck();
    await page.waitForURL(/[?&]compare=0/);
    await expect.poll(() => crawlerChart.locator('path.dash-chart-previous').count()).toBe(0);

    // Internal: its own pages.
    await page.getByRole('button', { name: 'Internal', exact: true }).click();
    await expect.poll(() => rowLabels(page, 'Top pages')).toEqual(['/admin', '/admin/orders']);
    expect(await measure(page, 'Sessions').locator('.dash-measure-value').textContent()).toBe('1');

    // A custom range of two days with no People in them.
    await page.getByRole('button', { name: 'People', exact: true }).click();
    await page.getByLabel('Range').selectOption('custom');
    const custom = page.locator('form[name="customRange"]');
    await custom.locator('input[name="from"]').fill(dayAgo(7));
    await custom.locator('input[name="to"]').fill(dayAgo(6));
    await custom.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`from=${dayAgo(7)}&to=${dayAgo(6)}`));
    await page.getByText('No data in this range yet').waitFor();

    // A range the API refuses: its problem title is shown.
    await page.goto(`${t.url}/sites/${siteId}/dashboard?range=custom&from=2000-01-01`);
    await page
      .getByRole('alert')
      .getByText(/Ask for at most 3660 days at once/)
      .waitFor();

    // A site nothing has reached yet shows its install steps, waiting for the first pageview.
    await page.goto(`${t.url}/sites/${emptyId}/dashboard`);
    await page.getByRole('heading', { name: 'Quiet blog dashboard', level: 1 }).waitFor();
    await page.getByText('Waiting for the first pageview…').waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).waitFor();
    await context.close();
  });

  it('shows a friendly page for an unknown site', { timeout: 60_000 }, async () => {
    const { t, browser } = suite;
    const owner = await createUser(t.deps);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);
    await page.goto(`${t.url}/sites/00000000-0000-4000-8000-000000000000/dashboard`);
    await page.getByText('No such site in this workspace.').waitFor();
    await context.close();
  });
});
