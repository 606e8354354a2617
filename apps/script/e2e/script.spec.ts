import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PageReport } from '@us/shared';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/support/browser.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SCRIPT = path.join(ROOT, 'dist/script.js');
const KEY = 'pk_abcdefghijklmnopqrstuvwxyz';
const QUEUE = `<script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>`;

/** Every report posted to /collect, tagged with the test page's `?case=` so scenarios stay apart. */
type Captured = PageReport & { case: string };
const reports: Captured[] = [];
const invalid: unknown[] = [];

/** A test page: `/p/<case>/<anything>?attrs=<json>`; the script tag gets the attributes from `attrs`. */
function html(url: URL): string {
  const attrs = JSON.parse(url.searchParams.get('attrs') ?? '{}') as Record<string, string>;
  const tag = Object.entries({ 'data-site': KEY, ...attrs })
    .map(([k, v]) => ` ${k}="${v}"`)
    .join('');
  return `<!doctype html><html><head><title>t</title>${QUEUE}
<script>unseen('early', { label: 'queued' })</script>
<script defer${tag} src="/script.js"></script></head>
<body style="margin:0"><div style="height:5000px">tall page</div></body></html>`;
}

function start(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/collect') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        try {
          const parsed = PageReport.safeParse(JSON.parse(body));
          if (parsed.success) {
            const c = new URL(parsed.data.u).pathname.split('/')[2] ?? '';
            reports.push({ ...parsed.data, case: c });
          } else invalid.push(body);
        } catch {
          invalid.push(body);
        }
        res.writeHead(204).end();
      });
      return;
    }
    if (url.pathname === '/script.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(SCRIPT));
      return;
    }
    if (url.pathname.startsWith('/p/')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(html(url));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>elsewhere</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const of = (c: string) => reports.filter((r) => r.case === c);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('page script in a real browser', () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(SCRIPT)) execFileSync(process.execPath, ['build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    server = await start();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
    expect(invalid).toEqual([]);
  });

  async function open(c: string, opts: { attrs?: Record<string, string>; init?: string; query?: string } = {}) {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    const page: Page = await context.newPage();
    if (opts.init) await page.addInitScript(opts.init);
    const attrs = encodeURIComponent(JSON.stringify(opts.attrs ?? {}));
    await page.goto(`${base}/p/${c}/start?attrs=${attrs}${opts.query ?? ''}`, { referer: 'https://news.example/item?id=1' });
    return { context, page };
  }

  it('sends a pageview with utm params and the referrer', { timeout: 30_000 }, async () => {
    const { context, page } = await open('pv', { query: '&utm_source=news&utm_campaign=launch' });
    await expect.poll(() => of('pv').filter((r) => r.t === 'pv').length).toBe(1);
    const pv = of('pv').find((r) => r.t === 'pv');
    if (pv?.t !== 'pv') throw new Error('no pv');
    expect(pv.k).toBe(KEY);
    expect(new URL(pv.u).searchParams.get('utm_source')).toBe('news');
    expect(new URL(pv.u).searchParams.get('utm_campaign')).toBe('launch');
    expect(pv.r).toBe('https://news.example/item?id=1');
    expect(pv.n).toBe(1);
    expect(pv.w).toBe(1000);
    expect(pv.l.length).toBeGreaterThan(0);
    expect(pv.z.length).toBeGreaterThan(0);
    expect(pv.x).toBeUndefined();
    // No cookies, no localStorage.
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await context.close();
  });

  it('counts a client-side navigation: leave + new pageview with a new id and n=2', { timeout: 30_000 }, async () => {
    const { context, page } = await open('nav', { attrs: { 'data-page-type': 'docs', 'data-journeys': 'off' } });
    await expect.poll(() => of('nav').filter((r) => r.t === 'pv').length).toBe(1);
    await page.evaluate(() => history.pushState({}, '', location.pathname.replace('start', 'second')));
    await expect.poll(() => of('nav').filter((r) => r.t === 'pv').length).toBe(2);
    await expect.poll(() => of('nav').filter((r) => r.t === 'leave').length).toBe(1);
    // replaceState on the same path is not a new page.
    await page.evaluate(() => history.replaceState({}, '', `${location.pathname}?q=1`));
    await sleep(300);
    const pvs = of('nav').filter((r) => r.t === 'pv');
    expect(pvs.length).toBe(2);
    const [a, b] = pvs;
    if (a?.t !== 'pv' || b?.t !== 'pv') throw new Error('no pv');
    expect(a.n).toBe(1);
    expect(b.n).toBe(2);
    expect(b.id).not.toBe(a.id);
    expect(b.r).toBe(a.u);
    expect(new URL(b.u).pathname).toBe('/p/nav/second');
    expect(b.p).toBe('docs');
    expect(b.j).toBe(1);
    const leave = of('nav').find((r) => r.t === 'leave');
    expect(leave?.id).toBe(a.id);
    await context.close();
  });

  it('sends events, including one queued before the script loaded', { timeout: 30_000 }, async () => {
    const { context, page } = await open('ev');
    await expect.poll(() => of('ev').filter((r) => r.t === 'pv').length).toBe(1);
    await page.evaluate(() =>
      (window as unknown as { unseen: (...a: unknown[]) => void }).unseen('signup', { label: 'pro', value: 9 }),
    );
    await expect.poll(() => of('ev').filter((r) => r.t === 'ev').length).toBe(2);
    const pv = of('ev').find((r) => r.t === 'pv');
    const evs = of('ev').filter((r) => r.t === 'ev');
    expect(evs.map((r) => (r.t === 'ev' ? [r.e, r.el, r.ev] : []))).toEqual([
      ['early', 'queued', undefined],
      ['signup', 'pro', 9],
    ]);
    for (const e of evs) expect(e.id).toBe(pv?.id);
    await context.close();
  });

  it('a call with values that are no text throws nothing into the page; the calls after it still go', {
    timeout: 30_000,
  }, async () => {
    // Queued before the script loaded, ahead of the page's own 'early'.
    const init = `window.unseen = function () { (unseen.q = unseen.q || []).push(arguments) }; unseen(Symbol('queued'));`;
    const { context, page } = await open('evbad', { init });
    await expect.poll(() => of('evbad').filter((r) => r.t === 'ev').length).toBe(1);
    const thrown = await page.evaluate(() => {
      const call = (window as unknown as { unseen: (...a: unknown[]) => void }).unseen;
      try {
        call(Symbol('direct'));
        call('labelled', { label: Symbol('label') });
        call({
          toString: () => {
            throw new Error('no text');
          },
        });
        call('after');
        return null;
      } catch (e) {
        return String(e);
      }
    });
    expect(thrown).toBeNull();
    await expect
      .poll(() =>
        of('evbad')
          .filter((r) => r.t === 'ev')
          .map((r) => (r.t === 'ev' ? r.e : '')),
      )
      .toEqual(['early', 'after']);
    await context.close();
  });

  it('sends the tag data (data-exp, data-prop-<key>) for the collector to read (pd)', { timeout: 30_000 }, async () => {
    const attrs = { 'data-exp': 'pricing:b', 'data-prop-plan': 'pro', 'data-prop-team-size': 'small' };
    const { context } = await open('exp', { attrs });
    await expect.poll(() => of('exp').filter((r) => r.t === 'pv').length).toBe(1);
    const pv = of('exp')[0];
    expect(pv?.t === 'pv' && pv.pd).toMatchObject({ exp: 'pricing:b', propPlan: 'pro', propTeamSize: 'small' });
    await context.close();
  });

  it('sends the properties of an event given with the JS call', { timeout: 30_000 }, async () => {
    const { context, page } = await open('evprops');
    await expect.poll(() => of('evprops').filter((r) => r.t === 'pv').length).toBe(1);
    await page.evaluate(() =>
      (window as unknown as { unseen: (n: string, o: unknown) => void }).unseen('signup', { props: { plan: 'pro' } }),
    );
    await expect.poll(() => of('evprops').filter((r) => r.t === 'ev' && r.e === 'signup').length).toBe(1);
    const ev = of('evprops').find((r) => r.t === 'ev' && r.e === 'signup');
    expect(ev?.t === 'ev' && ev.pr).toEqual({ plan: 'pro' });
    await context.close();
  });

  it('sends a leave report with scroll depth, visible time and interaction', { timeout: 30_000 }, async () => {
    const { context, page } = await open('leave');
    await expect.poll(() => of('leave').filter((r) => r.t === 'pv').length).toBe(1);
    await page.mouse.wheel(0, 1500);
    await page.evaluate(() => window.scrollTo(0, 2000));
    await sleep(400);
    await page.goto(`${base}/elsewhere`);
    await expect.poll(() => of('leave').filter((r) => r.t === 'leave').length).toBe(1);
    const leave = of('leave').find((r) => r.t === 'leave');
    if (leave?.t !== 'leave') throw new Error('no leave');
    expect(leave.s).toBeGreaterThan(0);
    expect(leave.d).toBeGreaterThan(0);
    expect(leave.i).toBe(1);
    expect(leave.id).toBe(of('leave')[0]?.id);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await context.close();
  });

  it('sends nothing from a hidden page until it is shown', { timeout: 30_000 }, async () => {
    const init = `
      window.__vis = 'hidden';
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => window.__vis });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__vis !== 'visible' });`;
    const { context, page } = await open('hidden', { init });
    await sleep(800);
    expect(of('hidden')).toEqual([]);
    await page.evaluate(() => {
      (window as unknown as { __vis: string }).__vis = 'visible';
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => of('hidden').filter((r) => r.t === 'pv').length).toBe(1);
    await context.close();
  });

  it('sends nothing at all with Global Privacy Control', { timeout: 30_000 }, async () => {
    const init = `Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { configurable: true, get: () => true });`;
    const { context, page } = await open('gpc', { init });
    await page.evaluate(() => (window as unknown as { unseen: (...a: unknown[]) => void }).unseen('signup'));
    await page.evaluate(() => window.scrollTo(0, 1000));
    await page.goto(`${base}/elsewhere`);
    await sleep(800);
    expect(of('gpc')).toEqual([]);
    await context.close();
  });

  it('sends nothing with a malformed key', { timeout: 30_000 }, async () => {
    const { context, page } = await open('badkey', { attrs: { 'data-site': 'pk_TOO-short' } });
    await page.goto(`${base}/elsewhere`);
    await sleep(800);
    expect(of('badkey')).toEqual([]);
    await context.close();
  });
});
