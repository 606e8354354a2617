import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA, postReport } from '../support/collect.ts';
import { decideFor, type GateSite, gateSite, postRecords } from '../support/gate.ts';
import { type Browser, passTheCheck } from '../support/pass-flow.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A Chrome user agent that says a program drives it. */
const DRIVEN = `${BROWSER_UA} Puppeteer`;
/** A carrier-grade NAT's public address: many phones and homes behind it. */
const NAT = '100.64.7.1';

/**
 * One client behind an address shared with others (carrier NAT, a school, an office) misbehaves: it
 * bursts through the pages with a common browser's user agent and never runs the page script. Behaviour
 * memory is filed per address and user agent, so every browser of the same kind behind that address
 * carries its signs. In `block` mode none of them may be refused for it: they are challenged, and one that
 * passes the check is served. A browser showing signs of its own is still refused; other sites never
 * notice.
 */
describe('attack: one client gets everyone behind its address refused', () => {
  let t: TestServer;
  let shop: GateSite;
  let other: GateSite;
  const a: Browser = { ip: NAT, ua: BROWSER_UA };
  const b: Browser = { ip: NAT, ua: BROWSER_UA };
  const ask = (s: GateSite, who: Browser, extra: Record<string, unknown> = {}) =>
    decideFor(t, s, { ip: who.ip, ua: who.ua, path: '/', host: s.hostname, tls: 'TLSv1.3', tlsClass: 'modern', ...extra }).expect(
      200,
    );

  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    shop = await gateSite(t, 'nat-shop.example', { mode: 'block' });
    other = await gateSite(t, 'nat-other.example', { mode: 'block' });
  });
  afterAll(() => t?.close());

  it('client A bursts; client B on the same address with the same browser is challenged, not refused, and served once it passes', async () => {
    // The shop's page script reports (another visitor's pageview), so pages without a report are a sign.
    await postReport(t, shop, { ip: '198.51.100.20' }).expect(202);
    // A: 40 pages in one minute, no page-script report, as the shop's edge records them.
    const at = Date.now();
    await postRecords(
      t,
      shop,
      Array.from({ length: 40 }, (_, i) => ({ path: `/item/${i}`, ip: a.ip, ua: a.ua, at })),
    ).expect(202);

    // B has done nothing, but shares A's memory: challenged, with a check to pass.
    await expect.poll(async () => (await ask(shop, b)).body.action, { timeout: 5_000 }).toBe('challenge');
    const challenged = (await ask(shop, b)).body;
    expect(challenged.signals).toEqual(expect.arrayContaining(['burst', 'no-script']));
    expect(challenged.reason).toMatch(/^automation signs: burst, no-script \(block refuses only on a browser's own signs/);
    expect(challenged.challengeUrl).toMatch(/\?t=/);

    // B passes the check for real (page, proof of work, /_us/pass on the shop's hostname) and is served.
    const pass = await passTheCheck(t, shop, challenged.challengeUrl, b);
    expect((await ask(shop, b, { pass })).body).toMatchObject({ action: 'allow', reason: 'check passed within the last day' });
    // A, without B's cookie, is still only challenged: the memory is A's as much as B's.
    expect((await ask(shop, a)).body.action).toBe('challenge');
  });

  it('a browser with signs of its own is still refused in block mode, on the same address', async () => {
    // A driven Chrome over TLS 1.0: the user agent's sign and this request's.
    const res = await ask(shop, { ip: NAT, ua: DRIVEN }, { tls: 'TLSv1.0', tlsClass: 'legacy' });
    expect(res.body).toMatchObject({ action: 'deny', reason: 'automation signs: puppeteer, tls-mismatch' });
    expect((await ask(shop, { ip: NAT, ua: 'curl/8.5.0' })).body.action).toBe('deny');
  });

  it('other sites serve the same address and browser, and count their requests', async () => {
    expect((await ask(other, b)).body).toMatchObject({ action: 'allow', reason: 'browser: no sign of automation' });
    await postRecords(t, other, [{ path: '/', ip: NAT, ua: BROWSER_UA, action: 'allow' }]).expect(202);
    await t.deps.ingest.flushNow();
    const rows = await t.deps.orm.em.fork().execute('select count(*)::int as n from requests where site_id = ?', [other.siteId]);
    expect(rows[0]?.n).toBe(1);
  });
});
