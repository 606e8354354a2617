import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SiteHostname } from '@us/db';
import { PASS_COOKIE } from '@us/protection';
import { Miniflare } from 'miniflare';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { protect } from '../../../packages/edge/src/protect.ts';
import { bundleWorker, SDK_ENTRY } from '../../../packages/edge/test/bundle.ts';
import { launchChromium } from '../../web/e2e/support/browser.ts';
import { type CollectSite, collectSite } from '../test/support/collect.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';

/**
 * The gate end to end, with every part real: the edge worker SDK in workerd (Miniflare, over HTTPS with its
 * own certificate) in front of a real origin, the service with its PostgreSQL, and Chromium as a person's
 * browser. The customer's hostname resolves to the worker inside Chromium only (`--host-resolver-rules`), so
 * the check page's redirect to `https://<hostname>/_us/pass` reaches the worker, which forwards it to the
 * service, as on a real zone. Each browser's address is given as `CF-Connecting-IP`, as Cloudflare does.
 */
/** The worker: the SDK around a plain fetch to the origin. */
function workerScript(originBase: string, options: string): Promise<string> {
  return bundleWorker(`import { withUnseen } from ${JSON.stringify(SDK_ENTRY)};
export default withUnseen(async (req) => {
  const url = new URL(req.url);
  return fetch(${JSON.stringify(originBase)} + url.pathname + url.search, { headers: { 'user-agent': req.headers.get('user-agent') ?? '' } });
}, ${options});`);
}

const CURL = 'curl/8.5.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const PERSON_IP = '198.51.100.23';
const OTHER_NETWORK_IP = '192.0.2.77';

describe('the gate end to end: workerd in front of an origin, the service, and Chromium', () => {
  let t: TestServer;
  let site: CollectSite;
  let origin: Server;
  let originBase = '';
  /** Paths the origin was asked for, in order. */
  const originSaw: string[] = [];
  let edge: Miniflare;
  let edgeUrl: URL;
  let browser: Browser;
  const extra: Miniflare[] = [];
  const openServers: Server[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, `shop-${Date.now().toString(36)}.example.test`, ['bot:read', 'bot:write', 'analytics:read']);
    // A check may only return to a hostname the site has proven (DNS verification has its own tests).
    const em = t.deps.orm.em.fork();
    await em.nativeUpdate(SiteHostname, { hostname: site.hostname }, { verifiedAt: new Date() });
    // Challenge mode; the account pages are for people only, the rest of the shop is open to browsers.
    await t.request
      .put(`/v1/sites/${site.siteId}/bot`)
      .set('Authorization', site.auth)
      .send({
        mode: 'challenge',
        bots: 'allow',
        rules: [
          { action: 'challenge', label: 'Accounts', match: { path: ['/account'] } },
          { action: 'deny', label: 'No AI training', match: { category: 'ai-training' } },
        ],
      })
      .expect(200);

    origin = createServer((req, res) => {
      originSaw.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Shop</title><h1>origin ${req.url}</h1>`);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

    edge = new Miniflare({
      modules: true,
      script: await workerScript(originBase, '{ batchSize: 1 }'),
      bindings: { SVC_SECRET: site.secret, SVC_SITE_KEY: site.publicKey, SVC_COLLECT_URL: `${t.url}/collect` },
      compatibilityDate: '2024-09-23',
      https: true,
    });
    edgeUrl = await edge.ready;
    // A cold isolate serves its first requests while it loads the site's config (at most 50 ms wait, then in
    // the background); a first visitor warms it, as on a real zone. The tests start once it decides with the
    // config: a curl asking for an API path is then told a check is needed (403) instead of being served.
    await (
      await visit('/', { ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36', ip: PERSON_IP })
    ).text();
    await vi.waitFor(
      async () => {
        const res = await visit('/warm-up', { ua: CURL, ip: '203.0.113.4' });
        await res.body?.cancel();
        expect(res.status).toBe(403);
      },
      { timeout: 10_000, interval: 50 },
    );
    browser = await launchChromium([
      `--host-resolver-rules=MAP ${site.hostname} 127.0.0.1:${edgeUrl.port}, MAP *.example.test ~NOTFOUND`,
      '--disable-blink-features=AutomationControlled',
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await edge?.dispose();
    for (const mf of extra) await mf.dispose();
    for (const s of [origin, ...openServers]) s?.closeAllConnections?.();
    for (const s of [origin, ...openServers]) await new Promise((r) => s?.close(r));
    await t?.close();
  });

  /**
   * A request to the worker as if it came to `https://<hostname><path>` from `ip`, with Cloudflare's `cf` facts.
   * Node's fetch always says `Sec-Fetch-Mode: cors`; Miniflare puts `MF-Sec-Fetch-Mode` in its place, so a
   * request asking for HTML is a page load, as curl's would be.
   */
  function visit(path: string, opts: { ua: string; ip: string; accept?: string; cf?: Record<string, unknown> }) {
    const headers: Record<string, string> = { 'user-agent': opts.ua, 'cf-connecting-ip': opts.ip, accept: opts.accept ?? '*/*' };
    if (opts.accept?.includes('text/html')) headers['MF-Sec-Fetch-Mode'] = 'navigate';
    return edge.dispatchFetch(`https://${site.hostname}${path}`, {
      headers,
      cf: opts.cf ?? { country: 'DE', asn: 3320, asOrganization: 'Deutsche Telekom AG' },
      redirect: 'manual',
    });
  }

  async function personContext(ip: string): Promise<BrowserContext> {
    return browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: { 'CF-Connecting-IP': ip }, locale: 'en-US' });
  }

  it('sends curl to the check and keeps it from the origin; robots.txt is served to it', async () => {
    const before = originSaw.length;
    const api = await visit('/products', { ua: CURL, ip: '203.0.113.5' });
    expect(api.status).toBe(403);
    expect(await api.text()).toContain('A quick check is needed');
    const page = await visit('/products', { ua: CURL, ip: '203.0.113.5', accept: 'text/html' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toMatch(new RegExp(`^${t.url}/challenge\\?t=`));
    await page.body?.cancel();
    expect(originSaw.length).toBe(before);

    const robots = await visit('/robots.txt', { ua: CURL, ip: '203.0.113.5' });
    expect(robots.status).toBe(200);
    expect(await robots.text()).toContain('origin /robots.txt');
  });

  it('refuses a Googlebot the platform did not verify, and serves one it did', async () => {
    const fake = await visit('/products', { ua: GOOGLEBOT, ip: '203.0.113.66', cf: { botManagement: { verifiedBot: false } } });
    expect(fake.status).toBe(403);
    expect(await fake.text()).toContain('Access refused');
    const real = await visit('/products', {
      ua: GOOGLEBOT,
      ip: '66.249.66.1',
      cf: { botManagement: { verifiedBot: true }, verifiedBotCategory: 'Search Engine Crawler' },
    });
    expect(real.status).toBe(200);
    expect(await real.text()).toContain('origin /products');
  });

  it('lets a person through the check: Chromium solves it, returns through /_us/pass and is served; the same pass from another network is checked again', async () => {
    const context = await personContext(PERSON_IP);
    const page = await context.newPage();
    // The open shop is served to a browser as it is.
    const home = await page.goto(`https://${site.hostname}/`);
    expect(home?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('origin /');

    // The account page: check page, solved by the browser by itself, back through /_us/pass, then the origin.
    const sawCheck = page.waitForRequest((r) => r.url().startsWith(`${t.url}/challenge?t=`));
    await page.goto(`https://${site.hostname}/account?tab=orders`, { waitUntil: 'commit' });
    await sawCheck;
    await page.waitForURL(`https://${site.hostname}/account?tab=orders`, { timeout: 30_000 });
    expect(await page.locator('h1').textContent()).toBe('origin /account?tab=orders');
    expect(originSaw).toContain('/account?tab=orders');
    const pass = (await context.cookies(`https://${site.hostname}/`)).find((c) => c.name === PASS_COOKIE);
    expect(pass).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });

    // Served again with the pass, no check.
    const again = await page.goto(`https://${site.hostname}/account`);
    expect(again?.url()).toBe(`https://${site.hostname}/account`);
    expect(await page.locator('h1').textContent()).toBe('origin /account');
    await context.close();

    // The same cookie in a browser on another network: it does not carry over.
    const elsewhere = await personContext(OTHER_NETWORK_IP);
    await elsewhere.addCookies([{ ...(pass as NonNullable<typeof pass>) }]);
    const other = await elsewhere.newPage();
    const checked = other.waitForRequest((r) => r.url().startsWith(`${t.url}/challenge?t=`));
    other.goto(`https://${site.hostname}/account`, { waitUntil: 'commit' }).catch(() => undefined);
    await checked;
    await elsewhere.close();
  }, 60_000);

  it('serves everything when the service is down or slow (the gate fails open)', async () => {
    // A port nothing listens on, and a service that accepts and never answers.
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}/collect`;
    await new Promise((r) => down.close(r));
    const slow = createServer(() => undefined);
    openServers.push(slow);
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/collect`;

    for (const collectUrl of [downUrl, slowUrl]) {
      const mf = new Miniflare({
        modules: true,
        script: await workerScript(originBase, '{ batchSize: 1 }'),
        bindings: { SVC_SECRET: site.secret, SVC_SITE_KEY: site.publicKey, SVC_COLLECT_URL: collectUrl },
        compatibilityDate: '2024-09-23',
      });
      extra.push(mf);
      await mf.ready;
      const res = await mf.dispatchFetch(`https://${site.hostname}/account`, {
        headers: { 'user-agent': CURL, 'cf-connecting-ip': '203.0.113.5', accept: 'text/html' },
        redirect: 'manual',
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('origin /account');
    }

    // Proxy mode (the Node gate) alike: no answer within its budget, or none at all → serve.
    for (const collectUrl of [downUrl, slowUrl]) {
      const verdict = await protect({
        secret: site.secret,
        collectUrl,
        ip: '203.0.113.5',
        method: 'GET',
        url: '/account',
        host: site.hostname,
        headers: { 'user-agent': CURL, accept: 'text/html' },
      });
      expect(verdict).toMatchObject({ do: 'serve', reason: expect.stringMatching(/^fail open: /) });
    }
  }, 30_000);

  it('proxy mode asks the real service and gets the same answers', async () => {
    const ask = (ua: string, path: string, accept = 'text/html') =>
      protect({
        secret: site.secret,
        collectUrl: `${t.url}/collect`,
        ip: '203.0.113.9',
        method: 'GET',
        url: path,
        host: site.hostname,
        headers: { 'user-agent': ua, accept },
        // The answers are the point here, not the speed (the bench measures that): a loaded machine may be slow.
        budgetMs: 15_000,
      });
    const curl = await ask(CURL, '/products');
    expect(curl).toMatchObject({
      do: 'redirect',
      status: 302,
      location: expect.stringMatching(new RegExp(`^${t.url}/challenge\\?t=`)),
    });
    const trainer = await ask('Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', '/products');
    expect(trainer).toMatchObject({ do: 'refuse', status: 403, action: 'deny', reason: 'rule: No AI training' });
    expect(await ask(CURL, '/robots.txt')).toMatchObject({ do: 'serve' });
  });

  it('shows what the gate did in the decisions report within seconds', async () => {
    const report = async () =>
      (await t.request.get(`/v1/sites/${site.siteId}/bot/decisions?days=1`).set('Authorization', site.auth).expect(200)).body;
    await expect
      .poll(
        async () => {
          const r = await report();
          return r.totals.deny >= 1 && r.totals.challenge >= 2 && r.totals.allow >= 3;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBe(true);
    const r = await report();
    const reasons = r.rows.map((row: { action: string; reason: string }) => `${row.action}: ${row.reason}`);
    expect(reasons).toContain('challenge: rule: Accounts');
    expect(reasons.some((x: string) => x.startsWith('deny: '))).toBe(true);
  });
});
