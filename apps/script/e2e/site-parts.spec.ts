import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { type Shop, siteOnHost, startShop } from '../../web/e2e/support/shop.ts';

/**
 * The site's own page script, end to end in Chromium: the snippet of a new site loads /script/<key>.js, the
 * core (pageviews and leave reports, no events API, no single-page navigation); once the site turns `events`
 * and `navigation` on in its settings, the same snippet gets a build that records the page's events and its
 * pushState pages. Every report goes to the real collect endpoint; the stored rows are what is asserted.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const HOST = 'parts.test';
const QUEUE = `<script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>`;

describe("a site's page script with the parts its settings name (real Chromium)", () => {
  let t: TestServer;
  let shop: Shop;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof siteOnHost>>;
  let snippet = '';

  /** Each page carries the snippet, queues an event before the script loads and, once loaded, navigates in-page. */
  function page(pathname: string): string {
    return `<!doctype html><html><head><title>${pathname}</title>${QUEUE}
<script>unseen('signup', { label: 'pro' })</script>
${snippet}</head><body><p>Hello</p></body></html>`;
  }

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'dist/manifest.json'))) {
      execFileSync(process.execPath, ['build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    }
    t = await startTestServer();
    site = await siteOnHost(t, HOST, ['sites:read', 'sites:write']);
    shop = await startShop(HOST, page);
    browser = shop.browser;
  });

  afterAll(async () => {
    await shop?.close();
    await t?.close();
  });

  const query = <T>(sql: string, params: unknown[]) => t.deps.orm.em.fork().execute(sql, params) as Promise<T[]>;
  const stored = async (table: 'pageviews' | 'page_leaves' | 'events', column: string) => {
    await t.deps.ingest.flushNow();
    const rows = await query<{ v: string }>(`select ${column} as v from ${table} where site_id = ? order by at`, [site.siteId]);
    return rows.map((r) => r.v);
  };
  const takeSnippet = async () => {
    const res = await t.request.get(`/v1/sites/${site.siteId}/snippet`).set('Authorization', site.auth).expect(200);
    snippet = res.body.html;
    return res.body as { scriptUrl: string; script: { features: string[]; gzipBytes: number } };
  };

  /**
   * Opens `pathname`, waits for its pageview, pushes `next` into history, then closes the tab (its leave report).
   * `recorded`: `next` makes a pageview, waited for before the tab closes (closed at once, its request could be lost
   * with the tab under load).
   */
  async function visit(pathname: string, next: string, recorded = false) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${shop.base}${pathname}`);
    await expect.poll(() => stored('pageviews', 'path'), { timeout: 15_000 }).toContain(pathname);
    await tab.evaluate((to) => history.pushState({}, '', to), next);
    if (recorded) await expect.poll(() => stored('pageviews', 'path'), { timeout: 15_000 }).toContain(next);
    await context.close();
  }

  it('a new site gets the core: pageviews and leaves, no events or in-page navigation', { timeout: 60_000 }, async () => {
    const snip = await takeSnippet();
    expect(new URL(snip.scriptUrl).pathname).toBe(`/script/${site.pk}.js`);
    expect(snip.script.features).toEqual([]);
    expect(snip.script.gzipBytes).toBeLessThanOrEqual(1024 + 64); // the core's code plus its licence line

    await visit('/core', '/core-next');
    // The leave report is the tab's last: once it is stored, anything else the page sent is too.
    await expect.poll(() => stored('page_leaves', 'pageview_id'), { timeout: 15_000 }).toHaveLength(1);
    expect(await stored('pageviews', 'path')).toEqual(['/core']);
    expect(await stored('events', 'name')).toEqual([]);
  });

  it('with events and navigation turned on, the same snippet records both', { timeout: 60_000 }, async () => {
    await t.request
      .patch(`/v1/sites/${site.siteId}/settings`)
      .set('Authorization', site.auth)
      .send({ scriptFeatures: ['navigation', 'events'] })
      .expect(200);
    const snip = await takeSnippet();
    expect(snip.script.features).toEqual(['events', 'navigation']);
    // The site's script follows its settings within about a second on every node (the sites generation).
    const built = readFileSync(path.join(ROOT, 'dist/builds/events-navigation.js'), 'utf8');
    await expect
      .poll(async () => (await t.request.get(`/script/${site.pk}.js`).set('Accept-Encoding', 'identity')).text)
      .toBe(built);

    await visit('/full', '/full-next', true);
    await expect.poll(() => stored('pageviews', 'path'), { timeout: 15_000 }).toEqual(['/core', '/full', '/full-next']);
    await expect.poll(() => stored('events', 'name'), { timeout: 15_000 }).toEqual(['signup']);
  });
});
