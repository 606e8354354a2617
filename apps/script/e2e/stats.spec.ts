import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { type Shop, siteOnHost, startShop } from '../../web/e2e/support/shop.ts';

/**
 * Page to number, end to end: a customer's pages on their own hostname (shop.test, mapped to loopback in
 * Chromium) load the page script from the API, the script reports to the API's collect endpoint, and
 * what a person did in the browser is read back through the stats API.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SCRIPT = path.join(ROOT, 'dist/script.js');
const HOST = 'shop.test';
const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('page script → collect → stats API (real Chromium)', () => {
  let t: TestServer;
  let shop: Shop;
  let shopBase: string;
  let browser: Browser;
  let siteId: string;
  let auth: string;

  /** The customer's site: every page carries the snippet; some pages add an experiment or an event. */
  function page(pathname: string): string {
    const exp = pathname === '/pricing' ? ' data-exp="pricing:b" data-prop-plan="pro"' : '';
    const extra =
      pathname === '/signup'
        ? `<button id="go" onclick="unseen('signup', { label: 'pro', value: 9 })">Sign up</button>`
        : pathname === '/app'
          ? `<a id="nav" href="/app/settings" onclick="event.preventDefault(); history.pushState({}, '', '/app/settings')">Settings</a>`
          : '';
    return `<!doctype html><html><head><title>${pathname}</title>
<script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>
<script defer data-site="${pk}"${exp} src="${t.url}/script.js"></script></head>
<body style="margin:0">${extra}<div style="height:6000px">content</div><a id="next" href="/elsewhere">next</a></body></html>`;
  }
  let pk = '';

  beforeAll(async () => {
    if (!existsSync(SCRIPT)) execFileSync(process.execPath, ['build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    t = await startTestServer();
    const site = await siteOnHost(t, HOST, ['sites:read', 'sites:write', 'analytics:read']);
    siteId = site.siteId;
    pk = site.pk;
    auth = site.auth;

    shop = await startShop(HOST, page);
    shopBase = shop.base;
    browser = shop.browser;
  });

  afterAll(async () => {
    await shop?.close();
    await t?.close();
  });

  async function visit(opts: { gpc?: boolean }, steps: (p: Page) => Promise<void>) {
    const context = await browser.newContext({
      userAgent: DESKTOP_UA,
      viewport: { width: 1280, height: 800 },
      extraHTTPHeaders: opts.gpc ? { 'Sec-GPC': '1' } : {},
    });
    if (opts.gpc)
      await context.addInitScript(() => Object.defineProperty(navigator, 'globalPrivacyControl', { get: () => true }));
    const p = await context.newPage();
    await steps(p);
    await context.close();
  }

  const stats = async (query: string) =>
    (await t.request.get(`/v1/sites/${siteId}/stats?${query}`).set('Authorization', auth).expect(200)).body;

  /** Reports travel by sendBeacon after the browser acts: flush until the stats show them (or give up). */
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    let last = await read();
    for (let i = 0; i < 40 && !ok(last); i++) {
      await sleep(150);
      await t.deps.ingest.flushNow();
      last = await read();
    }
    return last;
  }

  it('counts what a visitor did, and nothing from a browser sending Global Privacy Control', async () => {
    await visit({}, async (p) => {
      await p.goto(`${shopBase}/pricing`);
      await p.waitForLoadState('load');
      await p.mouse.wheel(0, 3000);
      await sleep(1200);
      // Leaves /pricing: its leave report carries scroll depth and time on page. /elsewhere must load
      // (and its script report) before the next navigation, or that pageview is never sent.
      await Promise.all([p.waitForURL(/\/elsewhere$/), p.click('#next')]);
      await p.waitForLoadState('load');
      await sleep(200);
      await p.goto(`${shopBase}/signup`);
      await p.waitForLoadState('load');
      await p.click('#go');
      await p.goto(`${shopBase}/app`);
      await p.waitForLoadState('load');
      await p.click('#nav'); // client-side navigation: a pageview without a page load
      await sleep(300);
    });
    await visit({ gpc: true }, async (p) => {
      await p.goto(`${shopBase}/private`);
      await p.waitForLoadState('load');
      await sleep(300);
    });

    const pages = await until(
      () => stats('metrics=pageviews&by=page&days=1'),
      (b: { rows: { value: string }[] }) => b.rows.some((r) => r.value === '/app/settings'),
    );
    const byPage = Object.fromEntries(
      pages.rows.map((r: { value: string; counts: { pageviews: number } }) => [r.value, r.counts.pageviews]),
    );
    expect(byPage).toMatchObject({ '/pricing': 1, '/elsewhere': 1, '/signup': 1, '/app': 1, '/app/settings': 1 });
    expect(byPage['/private']).toBeUndefined();
    expect(pages.lane).toBe('human');

    const events = await until(
      () => stats('metrics=events&by=event&days=1&where.kind=event'),
      (b: { rows: unknown[] }) => b.rows.length > 0,
    );
    expect(events.rows).toEqual([{ value: 'signup', counts: expect.objectContaining({ events: 1 }) }]);

    const exposures = await stats('metrics=events&by=variant&days=1&where.experiment=pricing');
    expect(exposures.rows).toEqual([{ value: 'b', counts: expect.objectContaining({ events: 1 }) }]);
    // The tag's data-prop-plan, read by the collector from the tag data the script sends.
    const plans = await stats('metrics=pageviews&by=prop:plan&days=1&where.page=/pricing');
    expect(plans.rows).toEqual([{ value: 'pro', counts: expect.objectContaining({ pageviews: 1 }) }]);

    const engagement = await until(
      () => stats('metrics=pageviews&by=page&days=1&where.page=/pricing'),
      (b: { rows: { counts: Record<string, number> }[] }) => (b.rows[0]?.counts.time_on_page ?? 0) > 0,
    );
    const pricing = engagement.rows[0].counts;
    expect(pricing.scroll_depth).toBeGreaterThan(20);
    expect(pricing.time_on_page).toBeGreaterThanOrEqual(1);

    const summary = (await t.request.get(`/v1/sites/${siteId}/summary?days=1`).set('Authorization', auth).expect(200)).body;
    expect(summary.measures.pageviews.value).toBe(5);
    expect(summary.measures.averageSession.value).toBeGreaterThan(0);

    // Global Privacy Control: not a single row anywhere for that visit.
    const rows = await t.deps.orm.em
      .fork()
      .execute(`select count(*)::int as n from pageviews where site_id = ? and path = '/private'`, [siteId]);
    expect(rows[0]?.n).toBe(0);
  });
});
