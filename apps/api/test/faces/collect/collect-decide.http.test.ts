import { issuePass, readTicket } from '@us/protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { BROWSER_UA } from '../../support/collect.ts';
import { type DnsStandIn, reverseName, startDnsServer } from '../../support/dns-server.ts';
import { decideFor, type GateSite, gateSite, getConfig, postRecords } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const DDG = 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)';
const CURL = 'curl/8.5.0';
const HOST = 'gate-decide.example';

/** POST /collect/decide: one request decided by the service, for proxy mode and platforms without the SDK. */
describe('POST /collect/decide', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let site: GateSite;
  let passKey: string;
  const ask = (body: Record<string, unknown>, s: GateSite = site) =>
    decideFor(t, s, { ip: '198.51.100.10', ua: BROWSER_UA, path: '/', host: HOST, ...body });

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ env: { DNS_SERVERS: dns.address } });
    site = await gateSite(t, HOST, { mode: 'challenge', bots: 'challenge' });
    passKey = (await getConfig(t, site).expect(200)).body.passKey;
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('challenges client software that never runs page scripts, with a return ticket for the page asked for', async () => {
    const res = await ask({ ua: CURL, path: '/account?tab=orders', host: 'GATE-DECIDE.example:443' }).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ action: 'challenge', reason: 'client software never runs page scripts: curl', risk: 50 });
    const url = new URL(res.body.challengeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(t.deps.urls.challenge);
    const ticket = await readTicket(passKey, url.searchParams.get('t') as string);
    expect(ticket).toMatchObject({ s: site.siteId, h: HOST, p: '/account?tab=orders', r: 50 });
  });

  // The decide endpoint gave a declared bot's ticket risk 0 (the lightest proof of work) where the edge gives 50.
  it("a declared bot that bots: challenge sends to the check gets the edge's middling proof of work", async () => {
    const res = await ask({ ua: 'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)' }).expect(200);
    expect(res.body).toMatchObject({ action: 'challenge', risk: -1 });
    const url = new URL(res.body.challengeUrl);
    expect(await readTicket(passKey, url.searchParams.get('t') as string)).toMatchObject({ s: site.siteId, r: 50 });
  });

  it('a challenge on a host a check cannot return to stays a challenge without a check page, as at the edge; deny stays deny', async () => {
    const noCheck = '(no check: not a verified hostname of the site, so a check could not return there)';
    for (const host of ['not-ours.example', 'Not-Ours.example:8080', 'not a hostname!']) {
      const res = await ask({ ua: CURL, host }).expect(200);
      expect(res.body).toMatchObject({
        action: 'challenge',
        reason: `client software never runs page scripts: curl ${noCheck}`,
        risk: 50,
      });
      expect(res.body.challengeUrl).toBeUndefined();
    }
    // A browser the gate would serve is served on any host: the host alone decides nothing.
    expect((await ask({ host: 'not-ours.example' }).expect(200)).body).toMatchObject({
      action: 'allow',
      reason: 'browser: no sign of automation',
    });
    expect((await ask({ ua: GOOGLEBOT, verifiedBot: false, host: 'not-ours.example' }).expect(200)).body).toMatchObject({
      action: 'deny',
      reason: 'unverified claim to be Googlebot',
    });
  });

  it('a valid us_pass serves a browser on a hosting network; a copy from another network does not', async () => {
    const pass = await issuePass(passKey, site.siteId, BROWSER_UA, '203.0.113.5');
    const cloud = { ip: '203.0.113.9', asn: 16509, asOrg: 'AMAZON-02' };
    expect((await ask(cloud).expect(200)).body).toMatchObject({
      action: 'challenge',
      reason: 'hosting network: AS16509',
      risk: 35,
    });
    expect((await ask({ ...cloud, pass }).expect(200)).body).toMatchObject({
      action: 'allow',
      reason: 'check passed within the last day',
    });
    expect((await ask({ ...cloud, ip: '192.0.2.9', pass }).expect(200)).body.action).toBe('challenge');
  });

  it('answers by mode: off serves and looks nothing up, log says what it would do, block spares the network alone', async () => {
    const s = await gateSite(t, 'gate-decide-modes.example', { mode: 'off' });
    const asked = dns.queries.length;
    const off = await ask({ ua: GOOGLEBOT, ip: '198.51.100.200', host: s.hostname }, s).expect(200);
    expect(off.body).toMatchObject({ action: 'allow', reason: 'off: protection is off', risk: -1 });
    expect(dns.queries.length).toBe(asked);
    // The collector looks at the sites' generation at most once a second: each change is seen within about that.
    await s.setBot({ mode: 'log' });
    await expect
      .poll(async () => (await ask({ ua: CURL, host: s.hostname }, s).expect(200)).body.reason)
      .toBe('log: would challenge: client software never runs page scripts: curl');
    // Log mode serves on any host and says what it would have done, as it always did.
    expect((await ask({ ua: CURL, host: 'not-ours.example' }, s).expect(200)).body).toMatchObject({
      action: 'allow',
      reason: 'log: would challenge: client software never runs page scripts: curl',
    });
    await s.setBot({ mode: 'block' });
    await expect.poll(async () => (await ask({ ua: CURL, host: s.hostname }, s).expect(200)).body.action).toBe('deny');
    expect((await ask({ asn: 16509, host: s.hostname }, s).expect(200)).body).toMatchObject({
      action: 'allow',
      reason: 'hosting network: AS16509 (the network alone never refuses anyone)',
    });
    expect((await ask({ ua: CURL, path: '/robots.txt', host: s.hostname }, s).expect(200)).body).toMatchObject({
      action: 'allow',
      reason: 'always served: /robots.txt',
    });
  });

  describe('crawler verification by forward-confirmed reverse DNS', () => {
    it('refuses a "Googlebot" whose address does not resolve to Google', async () => {
      dns.setPtr('198.51.100.77', ['scraper.evil.example']);
      const res = await ask({ ua: GOOGLEBOT, ip: '198.51.100.77' }).expect(200);
      expect(res.body).toMatchObject({
        action: 'deny',
        reason: 'unverified claim to be Googlebot',
        risk: -1,
        verifiedBot: false,
      });
      expect(dns.queries).toContain(reverseName('198.51.100.77'));
    });

    it('serves a Googlebot whose PTR is Google’s and whose name resolves back to the address; the verdict is cached', async () => {
      const name = 'crawl-198-51-100-78.googlebot.com';
      dns.setPtr('198.51.100.78', [name]);
      dns.setAddresses(name, ['198.51.100.78']);
      const res = await ask({ ua: GOOGLEBOT, ip: '198.51.100.78' }).expect(200);
      expect(res.body).toMatchObject({
        action: 'allow',
        reason: 'verified search engine: Googlebot',
        risk: -1,
        verifiedBot: true,
      });
      expect(dns.queries).toContain(name);
      const asked = dns.queries.length;
      await ask({ ua: GOOGLEBOT, ip: '198.51.100.78' }).expect(200);
      expect(dns.queries.length).toBe(asked);
    });

    it('refuses a Google PTR that does not resolve back (a spoofed reverse zone) and an address without a PTR', async () => {
      dns.setPtr('198.51.100.79', ['crawl-fake.googlebot.com']);
      dns.setAddresses('crawl-fake.googlebot.com', ['192.0.2.1']);
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.79' }).expect(200)).body.action).toBe('deny');
      // A lookalike domain is no Google domain.
      dns.setPtr('198.51.100.80', ['crawl.notgooglebot.com']);
      dns.setAddresses('crawl.notgooglebot.com', ['198.51.100.80']);
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.80' }).expect(200)).body.action).toBe('deny');
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.81' }).expect(200)).body.action).toBe('deny');
    });

    it('verifies over IPv6 too', async () => {
      const ip = '2001:db8:4860::5';
      dns.setPtr(ip, ['crawl-v6.googlebot.com']);
      dns.setAddresses('crawl-v6.googlebot.com', ['2001:db8:4860:0:0:0:0:5']);
      expect((await ask({ ua: GOOGLEBOT, ip }).expect(200)).body.reason).toBe('verified search engine: Googlebot');
    });

    it('DNS that does not answer within 300 ms or fails is unknown: the bot follows bots, and the answer is not held up', async () => {
      dns.setPtr('198.51.100.82', ['crawl-slow.googlebot.com']);
      dns.slowDown(reverseName('198.51.100.82'), 1500);
      const started = Date.now();
      const slow = await ask({ ua: GOOGLEBOT, ip: '198.51.100.82' }).expect(200);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(slow.body).toMatchObject({ action: 'challenge', reason: 'declared bot: Googlebot (bots: challenge)' });
      dns.fail(reverseName('198.51.100.83'));
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.83' }).expect(200)).body.reason).toBe(
        'declared bot: Googlebot (bots: challenge)',
      );
    });

    it('takes the platform’s verdict when given, and asks DNS nothing about bots whose operators publish address lists only', async () => {
      const asked = dns.queries.length;
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.90', verifiedBot: true }).expect(200)).body.reason).toBe(
        'verified search engine: Googlebot',
      );
      expect((await ask({ ua: GOOGLEBOT, ip: '198.51.100.91', verifiedBot: false }).expect(200)).body.reason).toBe(
        'unverified claim to be Googlebot',
      );
      // Outside DuckDuckGo's published list.
      expect((await ask({ ua: DDG, ip: '198.51.100.92' }).expect(200)).body.reason).toBe('unverified claim to be DuckDuckBot');
      expect(dns.queries.length).toBe(asked);
    });

    it('a rule matching only the country never touches a verified search engine', async () => {
      const s = await gateSite(t, 'gate-decide-country.example', {
        mode: 'challenge',
        rules: [{ action: 'deny', label: 'No DE', match: { country: 'DE' } }],
      });
      const body = { ua: GOOGLEBOT, ip: '198.51.100.78', country: 'DE', host: s.hostname };
      expect((await ask(body, s).expect(200)).body.reason).toBe('verified search engine: Googlebot');
      expect((await ask({ ...body, ua: BROWSER_UA }, s).expect(200)).body).toMatchObject({
        action: 'deny',
        reason: 'rule: No DE',
      });
    });
  });

  it('reads behaviour memory: two signs of the last day challenge a browser', async () => {
    const ip = '198.51.100.120';
    await postRecords(
      t,
      site,
      Array.from({ length: 31 }, (_, i) => ({ path: `/p${i}`, ip, ua: BROWSER_UA, tls: 'TLSv1.0' })),
    ).expect(202);
    const res = await ask({ ip }).expect(200);
    expect(res.body).toMatchObject({ action: 'challenge', reason: 'automation signs: burst, tls-mismatch', risk: 50 });
    expect(res.body.signals).toEqual(['burst', 'tls-mismatch']);
    // The request's own TLS counts too.
    expect((await ask({ ip: '198.51.100.121', tls: 'TLSv1.3', tlsClass: 'non-browser' }).expect(200)).body.signals).toEqual([
      'tls-mismatch',
    ]);
  });

  // The attack: a 400 makes the caller serve the request (the gate fails open), and these fields are the visitor's
  // to choose. A user agent of 1,100 characters, a long path, a long pass cookie, no Host or a Tor country `T1`
  // each got past every rule of a site behind protect().
  it('decides a request whose visitor-chosen fields are past their bounds, never refusing it', async () => {
    const s = await gateSite(t, 'decide-bounds.example', {
      mode: 'challenge',
      rules: [{ action: 'deny', label: 'admin', match: { path: '/admin' } }],
    });
    const admin = { action: 'deny', reason: 'rule: admin' };
    for (const change of [
      { path: `/${'a'.repeat(2_100)}/../admin` },
      { path: 'http://shop.example/admin?x=1' },
      { path: '/admin', ua: `${BROWSER_UA} ${'x'.repeat(10_000)}` },
      { path: '/admin', pass: 'p'.repeat(500) },
      { path: '/admin', country: 'T1' },
      { path: '/admin', host: '' },
      { path: '/admin', host: `${'h'.repeat(300)}.example` },
    ]) {
      const res = await ask({ host: s.hostname, ...change }, s);
      expect(res.status, JSON.stringify(change).slice(0, 80)).toBe(200);
      expect(res.body).toMatchObject(admin);
    }
    // A user agent past its bound is read from its first 1,024 characters: curl is still curl.
    expect((await ask({ host: s.hostname, path: '/', ua: `curl/8.5.0 ${'x'.repeat(2_000)}` }, s).expect(200)).body.action).toBe(
      'challenge',
    );
  });

  describe('refusals', () => {
    it('401 without the site secret, before the body is read', async () => {
      expectProblem(await t.request.post('/collect/decide').send({ ip: '1.2.3.4' }), 401);
      expectProblem(await decideFor(t, { secret: 'sk_live_nopenopenopenopenopenopenope1' }, {}), 401);
    });

    it.each([
      ['a missing address', { ip: undefined }, 'ip'],
      ['an address that is none', { ip: '999.1.1.1' }, 'ip'],
      ['a missing host', { host: undefined }, 'host'],
      ['an unknown field', { cookie: 'x' }, 'cookie'],
      ['a path that is no text', { path: 7 }, 'path'],
      ['a negative AS number', { asn: -1 }, 'asn'],
      ['verifiedBot as text', { verifiedBot: 'yes' }, 'verifiedBot'],
    ])('400 for %s, naming %s', async (_what, change, field) => {
      expectProblem(await ask(change), 400, field);
    });

    it('400 for a body that is not JSON, 413 past 64 KB, 405 for other methods', async () => {
      const raw = await t.request
        .post('/collect/decide')
        .set('x-svc-proxy', site.secret)
        .set('Content-Type', 'application/json')
        .send('{nope');
      expectProblem(raw, 400, '(body)');
      const big = await t.request
        .post('/collect/decide')
        .set('x-svc-proxy', site.secret)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ ip: '1.2.3.4', pad: 'x'.repeat(65 * 1024) }));
      expectProblem(big, 413);
      const get = await t.request.get('/collect/decide').set('x-svc-proxy', site.secret);
      expect(expectProblem(get, 405).title).toBe('Use POST for this path');
      expect(get.headers.allow).toBe('POST');
    });
  });
});
