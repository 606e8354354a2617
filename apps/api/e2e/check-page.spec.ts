import { PASS_COOKIE, verifyPass } from '@us/protection';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/support/browser.ts';
import { MESSAGES } from '../src/features/protection/challenge/messages/index.ts';
import { failedChecks, noteFailedCheck, visitorCodeOf } from '../src/features/protection/failed-checks.ts';
import { type CheckSite, checkSite } from '../test/support/check.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';

/**
 * The check page in a real Chromium: it solves the work by itself, and the browser's navigation to
 * `https://<hostname>/_us/pass?g=…` (the answer's 303; a host that resolves nowhere here) is captured
 * from the page's requests; `/_us/pass` is then driven over HTTP with the edge's forwarding headers, as
 * the edge SDK would. (Playwright's `page.route` does not see the target of a redirect, so the
 * request itself is what is captured.)
 * Each browser gets an address of its own through X-Forwarded-For (TRUST_PROXY), as visitors have.
 */
const VISITOR = '203.0.113.9';
let seq = 0;

describe('bot check page in a real browser', () => {
  let t: TestServer;
  let s: CheckSite;
  /** navigator.webdriver false, as in a person's browser (a context may make it say true: `webdriver`). */
  let person: Browser;

  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    s = await checkSite(t);
    // The customer's test hostnames resolve nowhere, without asking any DNS server.
    const offline = '--host-resolver-rules=MAP *.example.test ~NOTFOUND';
    person = await launchChromium(['--disable-blink-features=AutomationControlled', offline]);
  });
  afterAll(async () => {
    await person?.close();
    await t?.close();
  });

  /** A check page for a new ticket, in a context of its own; every request to the customer's host is kept. */
  async function openCheck(
    browser: Browser,
    opts: { risk?: number; locale?: string; javaScript?: boolean; ip?: string; webdriver?: boolean } = {},
  ) {
    const ip = opts.ip ?? `198.51.100.${++seq}`;
    const context = await browser.newContext({
      locale: opts.locale ?? 'en-US',
      javaScriptEnabled: opts.javaScript ?? true,
      extraHTTPHeaders: { 'X-Forwarded-For': ip },
    });
    // An automated browser says so in navigator.webdriver (one Chromium for every case: a second browser
    // launched only for this once hung in CI before opening a page).
    if (opts.webdriver) await context.addInitScript(() => Object.defineProperty(navigator, 'webdriver', { get: () => true }));
    const page = await context.newPage();
    const toHost: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).hostname === s.hosts.verified) toHost.push(r);
    });
    const ticket = await s.ticket({ r: opts.risk ?? 0 });
    return { page, context, ticket, toHost, ip, url: `${t.url}/challenge?t=${encodeURIComponent(ticket)}` };
  }

  it('solves the work by itself and lands on https://<hostname>/_us/pass; /_us/pass then sets a pass for this browser', async () => {
    const { page, context, url, toHost } = await openCheck(person, { risk: 100 });
    const ua = await page.evaluate(() => navigator.userAgent);
    const arrived = page.waitForRequest((r) => r.url().startsWith(`https://${s.hosts.verified}/_us/pass?g=`), {
      timeout: 20_000,
    });
    const started = Date.now();
    await page.goto(url, { waitUntil: 'commit' });
    const request = await arrived;
    const tookMs = Date.now() - started;
    expect(toHost).toHaveLength(1);
    expect(tookMs).toBeLessThan(15_000);
    const g = new URL(request.url()).searchParams.get('g') as string;

    // The edge forwards /_us/pass with the customer's hostname, the site's secret and the visitor's address.
    const res = await t.request
      .get(`/_us/pass?g=${encodeURIComponent(g)}`)
      .set({ 'x-forwarded-host': s.hosts.verified, 'x-svc-proxy': s.secret, 'x-svc-client-ip': VISITOR, 'User-Agent': ua });
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/shop\/cart\?x=\d+$/);
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith(`${PASS_COOKIE}=`)) as string;
    expect(cookie).toMatch(/; Path=\/; Max-Age=86400; HttpOnly; Secure; SameSite=Lax$/);
    const value = cookie.split(';')[0]?.slice(PASS_COOKIE.length + 1);
    expect(await verifyPass(s.passKey, s.siteId, ua, VISITOR, value)).toBe(true);
    expect(await verifyPass(s.passKey, s.siteId, ua, '192.0.2.9', value)).toBe(false);
    await context.close();
  });

  it('is usable with a keyboard and a screen reader, in the browser’s language', async () => {
    const { page, context, url } = await openCheck(person, { locale: 'de-DE' });
    const de = MESSAGES.de;
    // The answer gets 204 No Content, so the page stays on screen once the work is done.
    await page.route('**/challenge', (route) =>
      route.request().method() === 'POST' ? route.fulfill({ status: 204 }) : route.continue(),
    );
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/challenge'));
    await page.goto(url, { waitUntil: 'commit' });
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await expect.poll(() => page.getByRole('progressbar', { name: de.progressLabel }).count()).toBe(1);
    const status = page.getByRole('status', { name: de.statusLabel });
    expect(await status.getAttribute('aria-live')).toBe('polite');
    await posted;
    expect(await status.textContent()).toBe(de.done);
    const button = page.getByRole('button', { name: de.continue });
    expect(await button.isVisible()).toBe(true);
    // Reached with the keyboard: it is the page's one control.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('id')).toBe('us-go');
    await context.close();
  });

  it('tells a browser without JavaScript what to do', async () => {
    const { page, context, url } = await openCheck(person, { javaScript: false });
    await page.goto(url);
    // (Playwright's text selectors skip <noscript>: read what the page shows instead.)
    expect(await page.locator('noscript p').isVisible()).toBe(true);
    // biome-ignore lint/performance/useDomNodeTextContent: what is rendered is the point
    const shown = await page.locator('body').innerText();
    expect(shown).toContain(MESSAGES.en.noscript);
    expect(shown).not.toContain(MESSAGES.en.starting);
    expect(await page.getByRole('button').count()).toBe(0);
    expect(await page.getByRole('progressbar').count()).toBe(0);
    await context.close();
  });

  it('counts a browser that says it is automated (navigator.webdriver) as a failed check and never lets it through', async () => {
    const { page, context, url, toHost, ip } = await openCheck(person, { webdriver: true });
    const ua = await page.evaluate(() => navigator.userAgent);
    const posts: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r);
    });
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/challenge'), {
      timeout: 20_000,
    });
    await page.goto(url, { waitUntil: 'commit' });
    const res = await answered;
    expect(res.status()).toBe(403);
    await page.waitForLoadState('domcontentloaded', { timeout: 10_000 });
    const refusal = MESSAGES.en.refusals.automated;
    expect(await page.locator('h1').textContent({ timeout: 5_000 })).toBe(refusal.title);
    // biome-ignore lint/performance/useDomNodeTextContent: what is rendered is the point
    expect(await page.locator('body').innerText({ timeout: 5_000 })).toContain(refusal.text);
    // The refusal carries no work and no form, so the browser does not post again (it once looped page after page).
    expect(await page.locator('script, form').count()).toBe(0);
    expect(posts).toHaveLength(1);
    expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, ua))).toBe(1);
    expect(toHost).toHaveLength(0);
    await context.close();
  });

  /**
   * The solve times in docs/performance/figures.md, "The check page's work":
   * `CHECK_WORK_BENCH=1 SKIP_CHECKS=1 npm test -- check-page.spec`.
   * Per difficulty, from navigation start to the request for /_us/pass, and the work alone (the page's `ms`).
   */
  it.runIf(process.env.CHECK_WORK_BENCH)(
    'measures the time to solve each difficulty',
    async () => {
      const rows: string[] = [];
      const cases: Array<{ risk: number; failures: number; bits: number }> = [
        { risk: 0, failures: 0, bits: 12 },
        { risk: 25, failures: 0, bits: 14 },
        { risk: 50, failures: 0, bits: 16 },
        { risk: 75, failures: 0, bits: 18 },
        { risk: 100, failures: 0, bits: 20 },
        { risk: 100, failures: 1, bits: 22 },
        { risk: 100, failures: 2, bits: 24 },
      ];
      const samples = Number(process.env.CHECK_WORK_SAMPLES ?? 15);
      for (const c of cases) {
        const total: number[] = [];
        const work: number[] = [];
        for (let k = 0; k < samples; k++) {
          const { page, context, url, ip } = await openCheck(person, { risk: c.risk, ip: `10.${c.bits}.${k >> 8}.${k & 255}` });
          const ua = await page.evaluate(() => navigator.userAgent);
          for (let f = 0; f < c.failures; f++) await noteFailedCheck(t.deps, s.siteId, ip, ua);
          const post = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/challenge'), { timeout: 120_000 });
          const arrived = page.waitForRequest((r) => r.url().startsWith(`https://${s.hosts.verified}/_us/pass`), {
            timeout: 120_000,
          });
          const started = Date.now();
          await page.goto(url, { waitUntil: 'commit' });
          const body = new URLSearchParams((await post).postData() ?? '');
          await arrived;
          expect(body.get('b')).toBe(String(c.bits));
          total.push(Date.now() - started);
          work.push(Number(body.get('ms')));
          await context.close();
        }
        const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
        rows.push(
          `| ${c.risk} | ${c.failures} | ${c.bits} | ${q(work, 0.5)} | ${q(work, 0.9)} | ${Math.max(...work)} | ${q(total, 0.5)} |`,
        );
      }
      console.log(
        `| risk | failed checks | bits | work p50 ms | work p90 ms | work max ms | page to /_us/pass p50 ms |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
      );
    },
    1_800_000,
  );
});
