import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { type Shop, siteOnHost, startShop } from '../../web/e2e/support/shop.ts';

/**
 * Element clicks for journeys, end to end: Chromium clicks on a customer's page (shop.test, mapped to
 * loopback), the page script reports them to the real collect endpoint, and the stored events rows of
 * kind `click` carry the labels; a page with data-journeys="off" stores journeys=false and no clicks.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SCRIPT = path.join(ROOT, 'dist/script.js');
const HOST = 'shop.test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BODY = `
<a id="in" href="/pricing?plan=pro#top">Pricing</a>
<a id="out" href="https://docs.example/guide/start">Docs</a>
<button id="buy">
   Buy   <b id="buy-inner">now</b>
</button>
<div role="button" id="role">Open   menu</div>
<input type="submit" id="send" value="Send form">
<div data-us="  hero-cta  "><span id="hero">Start here</span></div>
<a data-us="signup-link" id="marked" href="/signup">Sign up</a>
<div id="plain">Just text</div>
<p><span id="para">Paragraph text</span></p>`;

describe('page script clicks → collect → events of kind click (real Chromium)', () => {
  let t: TestServer;
  let shop: Shop;
  let shopBase: string;
  let browser: Browser;
  let siteId: string;
  let pk = '';

  function page(pathname: string): string {
    const journeys = pathname === '/quiet' ? ' data-journeys="off"' : '';
    return `<!doctype html><html><head><title>${pathname}</title>
<script defer data-site="${pk}"${journeys} src="${t.url}/script.js"></script>
<script>document.addEventListener('click', (e) => e.preventDefault())</script></head>
<body>${BODY}</body></html>`;
  }

  beforeAll(async () => {
    if (!existsSync(SCRIPT)) execFileSync(process.execPath, ['build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    t = await startTestServer();
    const site = await siteOnHost(t, HOST, ['sites:read', 'sites:write']);
    siteId = site.siteId;
    pk = site.pk;
    shop = await startShop(HOST, page);
    shopBase = shop.base;
    browser = shop.browser;
  });

  afterAll(async () => {
    await shop?.close();
    await t?.close();
  });

  const query = <T>(sql: string, params: unknown[]) => t.deps.orm.em.fork().execute(sql, params) as Promise<T[]>;
  const clicksOn = async (pathname: string) =>
    (
      await query<{ name: string }>(
        `select name from events where site_id = ? and kind = 'click' and path = ? order by at, name`,
        [siteId, pathname],
      )
    ).map((r) => r.name);

  /** Reports travel by sendBeacon: flush until `ok` holds (or give up). */
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    let last = await read();
    for (let i = 0; i < 40 && !ok(last); i++) {
      await sleep(150);
      await t.deps.ingest.flushNow();
      last = await read();
    }
    return last;
  }

  async function visit(pathname: string, steps: (p: Page) => Promise<void>) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await context.newPage();
    await p.goto(`${shopBase}${pathname}`);
    await p.waitForLoadState('load');
    await p.waitForFunction(() => document.readyState === 'complete');
    await sleep(200); // the deferred script has run and sent its pageview
    await steps(p);
    await sleep(300);
    await context.close();
  }

  const ALL = ['#in', '#out', '#buy-inner', '#role', '#send', '#hero', '#marked', '#plain', '#para'];

  it('labels links, buttons and data-us elements, and sends nothing for other clicks', { timeout: 60_000 }, async () => {
    await visit('/clicks', async (p) => {
      for (const sel of ALL) await p.click(sel);
    });
    const expected = [
      '/pricing',
      'out:docs.example',
      'button:Buy now',
      'button:Open menu',
      'button:Send form',
      'hero-cta',
      'signup-link',
    ];
    const names = await until(
      () => clicksOn('/clicks'),
      (n) => n.length >= expected.length,
    );
    expect([...names].sort()).toEqual([...expected].sort());
    const [pv] = await query<{ journeys: boolean }>('select journeys from pageviews where site_id = ? and path = ?', [
      siteId,
      '/clicks',
    ]);
    expect(pv?.journeys).toBe(true);
  });

  it('sends at most 20 click reports per page', { timeout: 60_000 }, async () => {
    await visit('/many', async (p) => {
      for (let i = 0; i < 26; i++) await p.click('#hero');
    });
    const names = await until(
      () => clicksOn('/many'),
      (n) => n.length >= 20,
    );
    await sleep(500);
    await t.deps.ingest.flushNow();
    expect(names.length).toBe(20);
    expect(await clicksOn('/many')).toHaveLength(20);
  });

  it('on a data-journeys="off" page: journeys=false and no clicks at all', { timeout: 60_000 }, async () => {
    await visit('/quiet', async (p) => {
      for (const sel of ALL) await p.click(sel);
    });
    const pvs = await until(
      () => query<{ journeys: boolean }>('select journeys from pageviews where site_id = ? and path = ?', [siteId, '/quiet']),
      (rows) => rows.length > 0,
    );
    expect(pvs.map((r) => r.journeys)).toEqual([false]);
    await sleep(500);
    await t.deps.ingest.flushNow();
    expect(await clicksOn('/quiet')).toEqual([]);
  });
});
