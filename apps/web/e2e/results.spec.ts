import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addSessions, emptyRows, insertJourneys } from '../../api/test/support/journeys-fixture.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signInThroughUi } from './support/dashboard.ts';

const SCREENSHOT = (name: string) => `/tmp/e2e-results-${name}.png`;
const UI_TIMEOUT = 15_000;

/** Yesterday in UTC (the test site keeps UTC): a whole day of the default 7. */
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

const GOALS = [
  { id: 'signed-up', name: 'Signed up', type: 'event' as const, match: 'signup' },
  { id: 'pricing-page', name: 'Pricing page', type: 'path' as const, match: '/pricing' },
  { id: 'checkout', name: 'Checkout', type: 'path' as const, match: '/checkout' },
];

/**
 * 31 People sessions yesterday: 12 shown variant a of `pricing` (3 sign up), 10 shown b (8 sign up),
 * 3 shown c (too few to show), each landing on / and going on to /pricing where they click "Buy button";
 * and 6 reading /blog/post then /. Signed up: 11 of 31 visits (35.5 %); /pricing: 25 of 31.
 */
function traffic(siteId: string) {
  const rows = emptyRows();
  const shown = (variant: string, n: number, signups: number) => {
    const landing = { path: '/', exposures: [['pricing', variant]] as [string, string][] };
    addSessions(
      rows,
      siteId,
      { day: yesterday, pages: [landing, { path: '/pricing', clicks: ['Buy button'], events: ['signup'] }] },
      signups,
    );
    addSessions(rows, siteId, { day: yesterday, pages: [landing, { path: '/pricing', clicks: ['Buy button'] }] }, n - signups);
  };
  shown('a', 12, 3);
  shown('b', 10, 8);
  shown('c', 3, 0);
  addSessions(rows, siteId, { day: yesterday, pages: ['/blog/post', '/'] }, 6);
  return rows;
}

const figure = (page: Page, list: string, item: string) =>
  page.getByRole('list', { name: list }).getByRole('listitem', { name: item, exact: true });

const sankeyLabels = (page: Page) =>
  page.getByTestId('sankey').locator('a.sankey-node, g.sankey-node').locator('text.sankey-label').allTextContents();

describe('goals, experiment and journeys pages in a real browser', () => {
  const suite = dashboardSuite();

  it('shows goal rates, the experiment’s variants and verdict, and a Sankey whose steps set the anchor', {
    timeout: 180_000,
  }, async () => {
    const { t, browser } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Results workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), {
      workspace: owner.workspace.id,
      name: 'Shop',
      settings: {
        goals: GOALS,
        experiments: [{ key: 'pricing', name: 'Pricing test', variants: ['a', 'b', 'c'], status: 'running' }],
      },
    });
    const { siteId: bareId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Bare' });
    await insertJourneys(t.deps.orm, traffic(siteId));

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const thirdParty: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) thirdParty.push(r.url());
    });
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // Goals, from the site's header.
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Goals', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/goals$`));
    await page.getByRole('heading', { name: 'Shop goals', level: 1 }).waitFor();
    const signedUp = (item: string) => figure(page, 'Figures of Signed up', item);
    await expect.poll(() => signedUp('Conversion rate').textContent()).toContain('35.5%');
    expect(await signedUp('Conversion rate').textContent()).toContain('11 of 31 visits');
    expect(await signedUp('Completions').textContent()).toContain('11');
    expect(await figure(page, 'Figures of Pricing page', 'Conversion rate').textContent()).toContain('80.7%');
    const trend = page.getByRole('img', { name: /^Completions of Signed up per day/ });
    expect(await trend.locator('g.dash-chart-day').count()).toBe(7);
    expect(await trend.locator(`g.dash-chart-day[data-day="${yesterday}"] title`).textContent()).toContain('Completions 11');
    await page.locator('[data-goal="checkout"]').getByText('No completions in this period').waitFor();
    await page.screenshot({ path: SCREENSHOT('goals'), fullPage: true });
    await page.getByLabel('Period').selectOption('30');
    await page.waitForURL(/[?&]days=30/);
    await expect.poll(() => trend.locator('g.dash-chart-day').count()).toBe(30);
    await page.reload();
    expect(await page.getByLabel('Period').inputValue()).toBe('30');

    // A site without goals says where to add one.
    await page.goto(`${t.url}/sites/${bareId}/goals`);
    await page.getByText('No goals yet.').waitFor();
    expect(await page.getByRole('link', { name: 'Add a goal on the site’s page' }).getAttribute('href')).toBe(`/sites/${bareId}`);

    // The experiment, from its row on the site's page.
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Results of pricing' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/experiments/pricing$`));
    await page.getByRole('heading', { name: 'Experiment Pricing test', level: 1 }).waitFor();
    const verdict = page.getByTestId('verdict');
    await expect.poll(() => verdict.textContent()).toMatch(/^B converts better than a \(80\.0 % vs 25\.0 %\), p = 0\.0\d+$/);
    expect(await page.getByTestId('p-value').textContent()).toMatch(/^p = 0\.0\d+$/);
    const variant = (v: string) => page.getByRole('list', { name: 'Variants' }).getByRole('listitem', { name: `Variant ${v}` });
    expect(await variant('a').locator('dd').allTextContents()).toEqual(['12', '3', '25%', expect.any(String)]);
    expect(await variant('b').locator('dd').allTextContents()).toEqual(['10', '8', '80%', expect.any(String)]);
    expect(await variant('c').textContent()).toContain('Fewer than 5 sessions — not shown yet');
    const interval = page.getByRole('img', { name: /^Difference b − a: \+55\.0 points, 95 % interval \+\d/ });
    await interval.waitFor();
    const bar = interval.locator('rect.interval-bar');
    expect(Number(await bar.getAttribute('data-low'))).toBeGreaterThan(0);
    expect(await bar.getAttribute('class')).toContain('interval-up');
    await page.screenshot({ path: SCREENSHOT('experiment'), fullPage: true });
    // Another goal: every session reached /pricing, so there is no difference.
    expect(await page.getByLabel('Goal').inputValue()).toBe('signed-up');
    await page.getByLabel('Goal').selectOption('pricing-page');
    await page.waitForURL(/[?&]goal=pricing-page/);
    await expect.poll(() => verdict.textContent()).toMatch(/^No clear difference yet between a and b \(p = 1\)/);
    expect(await variant('b').locator('dd').nth(2).textContent()).toBe('100%');

    // Journeys, from the page links.
    await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Journeys' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/journeys$`));
    await page.getByRole('heading', { name: 'Shop journeys', level: 1 }).waitFor();
    await expect.poll(() => figure(page, 'Visits and goal rates', 'Visits').textContent()).toContain('31');
    expect(await figure(page, 'Visits and goal rates', 'Signed up rate').textContent()).toContain('35.5%');
    // The flow at section zoom: / and /blog first, then /pricing and /.
    const sankey = page.getByTestId('sankey');
    await sankey.waitFor();
    expect(await sankey.evaluate((el) => el.tagName.toLowerCase())).toBe('svg');
    await expect.poll(async () => (await sankeyLabels(page)).sort()).toEqual(['/ 25', '/ 6', '/blog 6', '/pricing 25']);
    expect(await sankey.locator('path.sankey-link').count()).toBe(2);
    expect(await page.getByRole('table', { name: 'Session flow, figures' }).locator('tbody tr').count()).toBe(2);
    const paths = page.getByRole('table', { name: 'Common paths' });
    const row = paths.getByRole('row', { name: /^\/ → \/pricing/ });
    expect(await row.locator('td').first().textContent()).toBe('25');
    expect(await row.locator('td').nth(1).textContent()).toBe('44%, ×1.24');
    await page.screenshot({ path: SCREENSHOT('journeys'), fullPage: true });

    // A click on /pricing centres the flow on it: the address says so and /blog is gone.
    await sankey.locator('a.sankey-node[data-node="1:/pricing"]').click();
    await page.waitForURL(/[?&]anchor=%2Fpricing/);
    await page.getByTestId('anchor').getByText('/pricing').waitFor();
    await expect.poll(async () => (await sankeyLabels(page)).sort()).toEqual(['/ 25', '/pricing 25']);
    expect(await sankey.locator('g.sankey-anchor text').textContent()).toBe('/pricing 25');
    // Keyboard: the steps are links in the tab order.
    expect(await sankey.locator('a.sankey-node').count()).toBe(1);
    await page.goBack();
    await expect.poll(async () => (await sankeyLabels(page)).length).toBe(4);

    // Element zoom: the clicked button; the anchor is dropped with the zoom.
    await page.getByRole('button', { name: 'Element', exact: true }).click();
    await page.waitForURL(/[?&]zoom=element/);
    await expect.poll(() => sankeyLabels(page)).toEqual(['Buy button 25']);
    // Your team: nothing, and what to do.
    await page.getByRole('button', { name: 'Your team', exact: true }).click();
    await page.waitForURL(/[?&]who=internal/);
    await page.getByText('No visits with steps in this period').waitFor();
    await page.getByTestId('flow-empty').waitFor();

    // The experiments list leads to each experiment's page.
    await page.getByRole('button', { name: 'People', exact: true }).click();
    await page.getByRole('list', { name: 'Experiments' }).getByRole('link', { name: 'Pricing test' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/experiments/pricing$`));
    await page.getByTestId('verdict').waitFor();

    // An unknown experiment says so.
    await page.goto(`${t.url}/sites/${siteId}/experiments/nope`);
    await page
      .getByRole('alert')
      .getByText(/No such experiment/)
      .waitFor();

    expect(thirdParty).toEqual([]);
    await context.close();
  });
});
