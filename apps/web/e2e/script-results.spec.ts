import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { requireBuiltDashboard } from './support/browser.ts';
import { type Shop, siteOnHost, startShop } from './support/shop.ts';

/**
 * The real page script on a customer's pages (shop.test, mapped to loopback in Chromium): landing pages
 * carry `data-exp`, the pricing page sends the goal's event through `window.unseen`, and what the
 * visitors did is read back as goal and experiment results and journeys through the API, then seen on the
 * dashboard. Visitors reach /pricing through a link and sign up with a button: the script's clicks make
 * the element zoom.
 */
const HOST = 'shop.test';
/** Each visitor its own browser build, so each is its own daily visitor code. */
const ua = (n: number) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${n}.0 Safari/537.36`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('page script → results and journeys (real Chromium)', () => {
  let t: TestServer;
  let shop: Shop;
  let shopBase: string;
  let browser: Browser;
  let siteId = '';
  let auth = '';
  let pk = '';
  let ownerEmail = '';

  /** /landing-a and /landing-b show a variant of `pricing` and link to /pricing, which has a button that signs up. */
  function page(pathname: string): string {
    const variant = /^\/landing-(a|b)$/.exec(pathname)?.[1];
    const exp = variant ? ` data-exp="pricing:${variant}"` : '';
    const button =
      pathname === '/pricing'
        ? `<button id="signup" onclick="unseen('signup')">Sign up</button>`
        : '<a id="to-pricing" href="/pricing">See pricing</a>';
    return `<!doctype html><html><head><title>${pathname}</title>
<script>window.unseen = window.unseen || function () { (unseen.q = unseen.q || []).push(arguments) }</script>
<script defer data-site="${pk}"${exp} src="${t.url}/script.js"></script></head>
<body>${button}<p>content</p></body></html>`;
  }

  beforeAll(async () => {
    requireBuiltDashboard();
    t = await startTestServer();
    const site = await siteOnHost(t, HOST, ['sites:read', 'sites:write', 'analytics:read']);
    siteId = site.siteId;
    pk = site.pk;
    auth = site.auth;
    ownerEmail = site.email;
    await t.request
      .post(`/v1/sites/${siteId}/goals`)
      .set('Authorization', auth)
      .send({ name: 'Signed up', type: 'event', match: 'signup' })
      .expect(201);
    await t.request
      .post(`/v1/sites/${siteId}/experiments`)
      .set('Authorization', auth)
      .send({ key: 'pricing', name: 'Pricing test', variants: ['a', 'b'], status: 'running' })
      .expect(201);

    shop = await startShop(HOST, page);
    shopBase = shop.base;
    browser = shop.browser;
  });

  afterAll(async () => {
    await shop?.close();
    await t?.close();
  });

  /** One visitor: the landing page of `variant`, then /pricing, signing up there when `signs`. */
  async function visitor(n: number, variant: 'a' | 'b', signs: boolean) {
    const context = await browser.newContext({ userAgent: ua(n) });
    const p = await context.newPage();
    await p.goto(`${shopBase}/landing-${variant}`);
    await p.waitForLoadState('load');
    await sleep(200);
    await p.click('#to-pricing');
    await p.waitForURL(`${shopBase}/pricing`);
    await p.waitForLoadState('load');
    await sleep(200);
    if (signs) await p.click('#signup');
    await sleep(200);
    await context.close();
  }

  const get = async (path: string) => (await t.request.get(path).set('Authorization', auth).expect(200)).body;

  /** Reports travel by sendBeacon: flush until the answer shows them (or give up). */
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    let last = await read();
    for (let i = 0; i < 40 && !ok(last); i++) {
      await sleep(150);
      await t.deps.ingest.flushNow();
      last = await read();
    }
    return last;
  }

  it('counts the variants, the goal and the flow of what visitors did', { timeout: 300_000 }, async () => {
    // Cookie-free visits start afresh at UTC midnight (the daily salt): a run across it would split a
    // visitor in two. Start clear of it.
    const toMidnight = 86_400_000 - (Date.now() % 86_400_000);
    if (toMidnight < 120_000) await sleep(toMidnight + 2000);
    // a: 6 visitors, 1 signs up; b: 6 visitors, 5 sign up.
    for (let i = 0; i < 6; i++) await visitor(i, 'a', i === 0);
    for (let i = 0; i < 6; i++) await visitor(100 + i, 'b', i !== 0);

    const goals = await until(
      () => get(`/v1/sites/${siteId}/goals/results?days=1`),
      // Every figure asserted below: a report flushed after the others can complete the count of events before
      // the count of sessions reaching the goal (a loaded CI run once read 6 completions and 5 sessions).
      (b: { goals: { completions: number; sessions: number }[]; visits: number | null }) =>
        b.goals[0]?.completions === 6 && b.goals[0]?.sessions === 6 && b.visits === 12,
    );
    expect(goals.goals[0]).toMatchObject({ id: 'signed-up', completions: 6, sessions: 6, visits: 12, rate: 50 });

    const experiment = await get(`/v1/sites/${siteId}/experiments/pricing/results?days=1`);
    const variants = Object.fromEntries(
      experiment.variants.map((v: { variant: string; sessions: number; converted: number }) => [
        v.variant,
        [v.sessions, v.converted],
      ]),
    );
    expect(variants).toEqual({ a: [6, 1], b: [6, 5] });
    expect(experiment.comparison).toMatchObject({ a: 'a', b: 'b', test: 'pooled two-sided z-test' });
    expect(experiment.verdict).toMatch(/^b converts better than a \(83\.3 % vs 16\.7 %\), p [=<] 0\.\d+$/);

    const journeys = await get(`/v1/sites/${siteId}/journeys?days=1&zoom=page`);
    expect(journeys.visits).toBe(12);
    const links = Object.fromEntries(
      journeys.flow.links.map((l: { source: string; target: string; sessions: number }) => [
        `${l.source}>${l.target}`,
        l.sessions,
      ]),
    );
    expect(links).toEqual({ '0:/landing-a>1:/pricing': 6, '0:/landing-b>1:/pricing': 6 });
    expect(journeys.goals[0]).toMatchObject({ id: 'signed-up', sessions: 6, rate: 50 });
    expect(journeys.experiments[0].variants).toEqual([
      { variant: 'a', sessions: 6, converted: 1, rate: expect.closeTo(16.7, 1) },
      { variant: 'b', sessions: 6, converted: 5, rate: expect.closeTo(83.3, 1) },
    ]);
    // Anchored on /pricing: the landing pages come one step before it.
    const anchored = await get(`/v1/sites/${siteId}/journeys?days=1&zoom=page&anchor=%2Fpricing`);
    expect(anchored.flow.nodes.map((n: { id: string }) => n.id).sort()).toEqual(['-1:/landing-a', '-1:/landing-b', '0:/pricing']);

    // Element zoom, from the script's own click reports: the link, then the button for those who signed up.
    const elements = await until(
      () => get(`/v1/sites/${siteId}/journeys?days=1&zoom=element`),
      (b: { flow: { nodes: { id: string; sessions: number }[]; links: unknown[] } }) => b.flow.links.length === 1,
    );
    expect(elements.flow.nodes.map((n: { id: string; sessions: number }) => [n.id, n.sessions])).toEqual([
      ['0:/pricing', 12],
      ['1:button:Sign up', 6],
    ]);

    // And on the dashboard: the owner signs in and sees the same flow and verdict.
    const context = await browser.newContext();
    const dash = await context.newPage();
    await dash.goto(`${t.url}/login`);
    const form = dash.locator('form[name="login"]');
    await form.locator('input[name="email"]').fill(ownerEmail);
    await form.locator('input[name="password"]').fill(GOOD_PASSWORD);
    await form.locator('button[type="submit"]').click();
    await dash.waitForURL((u) => !u.pathname.startsWith('/login'));
    await dash.goto(`${t.url}/sites/${siteId}/journeys?days=7&zoom=element`);
    const labels = () =>
      dash.getByTestId('sankey').locator('a.sankey-node, g.sankey-node').locator('text.sankey-label').allTextContents();
    await expect.poll(async () => (await labels()).sort()).toEqual(['/pricing 12', 'button:Sign up 6']);
    await dash.goto(`${t.url}/sites/${siteId}/experiments/pricing?days=7`);
    await expect.poll(() => dash.getByTestId('verdict').textContent()).toMatch(/^B converts better than a/);
    await context.close();
  });
});
