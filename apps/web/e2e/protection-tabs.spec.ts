import { insertRows, type RequestRow, SiteHostname } from '@us/db';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/** Pictures to look at (not compared): the Decisions tab at 1280 and at 400 pixels wide. */
const SCREENSHOT = (name: string) => `/tmp/e2e-protection-tabs-${name}.png`;
const NORMAL_REASON = 'verified search engine: Googlebot';
const LONG_REASON =
  'client software never runs page scripts: python-requests; hosting network: AS16509; two automation signs of its own: headless user agent, no accept-language header';

/** The tabs in their order, with something only their panel shows. */
const TABS = [
  { name: 'Settings', param: null, shows: (p: Page) => p.getByRole('group', { name: 'Mode' }) },
  { name: 'Decisions', param: 'decisions', shows: (p: Page) => p.getByRole('table', { name: 'Decisions by reason' }) },
  { name: 'AI traffic', param: 'ai-traffic', shows: (p: Page) => p.getByRole('list', { name: 'AI traffic in the period' }) },
  { name: 'Try a request', param: 'try', shows: (p: Page) => p.locator('form[name="tryRequest"]') },
] as const;

function requests(siteId: string, n: number, extra: Partial<RequestRow>): RequestRow[] {
  return Array.from({ length: n }, () => ({
    siteId,
    at: new Date(Date.now() - 3_600_000),
    method: 'GET',
    path: '/',
    status: 200,
    durationMs: 8,
    lane: 'bot',
    kind: 'bot',
    verified: false,
    ...extra,
  }));
}

/** What the browser-side helpers below use of the DOM (the e2e project compiles without its types). */
interface InPage {
  ownerDocument: {
    createRange(): { selectNodeContents(node: unknown): void; getClientRects(): ArrayLike<{ top: number }> };
    defaultView: { getComputedStyle(el: unknown): { textAlign: string } };
  };
}

/** How many lines the element's text takes (its line boxes, told apart by their top). */
const linesOf = (cell: Locator) =>
  cell.evaluate((el) => {
    const range = (el as unknown as InPage).ownerDocument.createRange();
    range.selectNodeContents(el);
    return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
  });

const textAlignOf = (cell: Locator) =>
  cell.evaluate((el) => (el as unknown as InPage).ownerDocument.defaultView.getComputedStyle(el).textAlign);

const selectedTab = (page: Page) => page.getByRole('tab', { selected: true });

async function expectOnTab(page: Page, tab: (typeof TABS)[number]) {
  await expect.poll(() => selectedTab(page).textContent()).toBe(tab.name);
  await tab.shows(page).waitFor();
  // The other tabs' panels are not shown.
  expect(await page.getByRole('tabpanel').count()).toBe(1);
  expect(await page.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(await selectedTab(page).getAttribute('id'));
}

describe('protection page: tabs at their own addresses, setup problems above them, tables that fit', () => {
  const suite = dashboardSuite();

  it('opens each tab by address, by click, by keyboard and with Back; axe finds nothing on any tab', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Tabs workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), {
      workspace: owner.workspace.id,
      name: 'Tab shop',
      settings: { bot: { mode: 'challenge', bots: 'allow', rules: [] } },
    });
    const em = t.deps.orm.em.fork();
    em.create(SiteHostname, { site: siteId, hostname: 'tab-shop.example', verifyToken: 'v'.repeat(64) });
    await em.flush();
    await insertRows(t.deps.orm, 'requests', [
      ...requests(siteId, 4, {
        botName: 'Googlebot',
        botCategory: 'search-engine',
        kind: 'verified-bot',
        verified: true,
        decision: 'allow',
        reason: NORMAL_REASON,
        risk: -1,
      }),
      ...requests(siteId, 2, {
        kind: 'browser',
        botName: 'python-requests',
        botCategory: 'tool',
        decision: 'challenge',
        reason: LONG_REASON,
        risk: 100,
      }),
    ]);
    const { context, page } = await signedInPage(suite, owner.email);
    try {
      const base = `${t.url}/sites/${siteId}/protection`;

      // Each tab at its own address, the setup problems above the tabs on every one; axe on each.
      for (const tab of TABS) {
        await page.goto(tab.param ? `${base}?tab=${tab.param}` : base);
        await expectOnTab(page, tab);
        const problems = page.getByTestId('setup-problems');
        await problems.getByText('Verify hostname tab-shop.example to challenge visitors on it.').waitFor();
        expect(await problems.getByRole('link', { name: 'Go to the site’s hostnames' }).getAttribute('href')).toBe(
          `/sites/${siteId}`,
        );
        // Edges report requests here, so no "no edge" problem.
        expect(await problems.getByText(/No request from an edge/).count()).toBe(0);
        expect(await accessibilityProblems(page)).toEqual([]);
      }

      // The decision table: a normal reason on one line, a long one on few; numbers right-aligned.
      await page.goto(`${base}?tab=decisions`);
      const byReason = page.getByRole('table', { name: 'Decisions by reason' });
      const normal = byReason.getByRole('rowheader', { name: NORMAL_REASON });
      await normal.waitFor();
      expect(await linesOf(normal)).toBe(1);
      // The reason column takes what the narrow columns leave: most of the table, so a very long reason wraps over few lines.
      const long = byReason.getByRole('rowheader', { name: LONG_REASON });
      const [reasonBox, tableBox] = [await long.boundingBox(), await byReason.boundingBox()];
      expect((reasonBox?.width ?? 0) / (tableBox?.width ?? 1)).toBeGreaterThan(0.6);
      expect(await linesOf(long)).toBeLessThanOrEqual(3);
      await page.screenshot({ path: SCREENSHOT('decisions'), fullPage: true });
      const count = byReason
        .getByRole('row', { name: new RegExp(NORMAL_REASON) })
        .getByRole('cell')
        .last();
      expect(await count.textContent()).toBe('4');
      expect(await textAlignOf(count)).toBe('right');

      // By click: a new address, and Back returns to the tab before.
      await page.getByRole('tab', { name: 'AI traffic' }).click();
      await page.waitForURL(`${base}?tab=ai-traffic`);
      await expectOnTab(page, TABS[2]);
      await page.goBack();
      await page.waitForURL(`${base}?tab=decisions`);
      await expectOnTab(page, TABS[1]);

      // By keyboard: Tab from the setup problems' last link lands on the selected tab (the only tab stop);
      // the arrows, Home and End move between tabs and open them.
      await page.getByTestId('setup-problems').getByRole('link').last().focus();
      await page.keyboard.press('Tab');
      const focusedTab = () => page.evaluate('document.activeElement && document.activeElement.textContent');
      expect(await focusedTab()).toBe('Decisions');
      expect(await page.getByRole('tab', { name: 'Settings' }).getAttribute('tabindex')).toBe('-1');
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(`${base}?tab=ai-traffic`);
      await expectOnTab(page, TABS[2]);
      expect(await focusedTab()).toBe('AI traffic');
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(`${base}?tab=try`);
      await expectOnTab(page, TABS[3]);
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(base);
      await expectOnTab(page, TABS[0]);
      expect(await focusedTab()).toBe('Settings');
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL(`${base}?tab=try`);
      await page.keyboard.press('Home');
      await page.waitForURL(base);
      await page.keyboard.press('End');
      await page.waitForURL(`${base}?tab=try`);
      await expectOnTab(page, TABS[3]);
      // Tab again leaves the tab list for the panel.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(`document.activeElement.closest('[role="tabpanel"]') !== null`)).toBe(true);

      // On a narrow screen the reasons table keeps its width and scrolls in its own box.
      await page.setViewportSize({ width: 400, height: 800 });
      await page.goto(`${base}?tab=decisions`);
      const wrap = page.getByRole('table', { name: 'Decisions by reason' }).locator('xpath=..');
      await wrap.waitFor();
      const box = await wrap.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(box.scroll).toBeGreaterThan(box.client);
      expect(await linesOf(page.getByRole('rowheader', { name: NORMAL_REASON }))).toBe(1);
      await page.screenshot({ path: SCREENSHOT('narrow'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('says so when protection is on and no edge has reported a request, with a link to where the edge is installed', {
    timeout: 90_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Edgeless workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), {
      workspace: owner.workspace.id,
      name: 'Edgeless shop',
      settings: { bot: { mode: 'log', bots: 'allow', rules: [] } },
    });
    const { context, page } = await signedInPage(suite, owner.email);
    try {
      await page.goto(`${t.url}/sites/${siteId}/protection?tab=decisions`);
      const problems = page.getByTestId('setup-problems');
      await problems.getByText('No request from an edge in the last 7 days.').waitFor();
      await problems.getByRole('link', { name: 'Install at your edge' }).click();
      await page.waitForURL(`${t.url}/sites/${siteId}/protection`);
      await expectOnTab(page, TABS[0]);
      await page.getByRole('heading', { name: 'Install at your edge' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
