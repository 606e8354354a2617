import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protect } from '../../../../../packages/edge/src/protect.ts';
import { type DnsStandIn, reverseName, startDnsServer } from '../../support/dns-server.ts';
import { decideFor, type GateSite, gateSite } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const ADSBOT = 'AdsBot-Google (+http://www.google.com/adsbot.html)';
const READ_ALOUD =
  'Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)';
const BINGBOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const APPLEBOT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
const DDG = 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)';

/**
 * Crawler verification against a real DNS server on 127.0.0.1: the operators' published ranges first, then
 * forward-confirmed reverse DNS under their documented domains, answered within the caller's budget and
 * cached per address.
 */
describe('crawler verification', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  /** bots: challenge, so `unknown` (challenge), `verified` (allow) and `failed` (deny) are told apart. */
  let site: GateSite;
  /** bots: allow, as most sites have it. */
  let lenient: GateSite;
  const decide = (body: Record<string, unknown>, s: GateSite = site) =>
    decideFor(t, s, { ua: GOOGLEBOT, path: '/', host: s.hostname, budgetMs: 5000, ...body }).expect(200);
  const verify = (body: Record<string, unknown>) =>
    t.request
      .post('/collect/verify')
      .set('x-svc-proxy', site.secret)
      .send({ ua: GOOGLEBOT, budgetMs: 5000, ...body })
      .expect(200);
  /** A crawler's name and address as its operator's DNS would publish them. */
  const publish = (ip: string, name: string) => {
    dns.setPtr(ip, [name]);
    dns.setAddresses(name, [ip]);
  };

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ env: { DNS_SERVERS: dns.address } });
    site = await gateSite(t, 'crawler-verification.example', { mode: 'challenge', bots: 'challenge' });
    lenient = await gateSite(t, 'crawler-verification-allow.example', { mode: 'challenge', bots: 'allow' });
    // A node's first decisions load what it looks addresses up in and learn the sites' secrets: done before
    // anything is timed.
    for (const s of [site, lenient]) {
      await decideFor(t, s, {
        ip: '198.51.100.1',
        ua: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
        path: '/',
        host: s.hostname,
      }).expect(200);
    }
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('refuses a "Googlebot" on a cloud VM: its name is under googleusercontent.com, even resolving back', async () => {
    const ip = '203.0.113.50';
    publish(ip, '50.113.0.203.bc.googleusercontent.com');
    expect((await decide({ ip })).body).toMatchObject({ action: 'deny', reason: 'unverified claim to be Googlebot', risk: -1 });
    expect(dns.queries).toContain(reverseName(ip));
    // Its name is under no Google crawler domain: not even asked about.
    expect(dns.queries).not.toContain('50.113.0.203.bc.googleusercontent.com');
    // Nor does that name verify a user-triggered fetcher (the names of every Google Cloud VM end in it).
    expect((await verify({ ip, ua: READ_ALOUD })).body).toMatchObject({ verification: 'failed', bot: 'Google-Read-Aloud' });
  });

  it('serves Google’s crawlers by their documented names, resolving back to the address', async () => {
    publish('192.0.2.66', 'crawl-192-0-2-66.googlebot.com');
    expect((await decide({ ip: '192.0.2.66' })).body).toMatchObject({
      action: 'allow',
      reason: 'verified search engine: Googlebot',
    });
    expect(dns.queries).toContain('crawl-192-0-2-66.googlebot.com');
    // A special-case crawler (AdsBot) is named under google.com.
    publish('192.0.2.77', 'rate-limited-proxy-192-0-2-77.google.com');
    expect((await decide({ ip: '192.0.2.77', ua: ADSBOT })).body.reason).toBe('verified search engine: Google');
    // A Google name that resolves elsewhere is a spoofed reverse zone.
    dns.setPtr('192.0.2.78', ['crawl-192-0-2-78.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-78.googlebot.com', ['192.0.2.1']);
    expect((await decide({ ip: '192.0.2.78' })).body.action).toBe('deny');
  });

  it('verifies an address inside the operator’s published ranges without a DNS question', async () => {
    // Even with a reverse zone saying otherwise: the ranges answer first.
    dns.setPtr('66.249.66.1', ['scraper.evil.example']);
    const asked = dns.queries.length;
    expect((await decide({ ip: '66.249.66.1' })).body.reason).toBe('verified search engine: Googlebot');
    expect((await decide({ ip: '2001:4860:4801:10::1' })).body.reason).toBe('verified search engine: Googlebot');
    expect((await decide({ ip: '157.55.39.1', ua: BINGBOT })).body.reason).toBe('verified search engine: Bingbot');
    expect((await decide({ ip: '17.241.208.161', ua: APPLEBOT })).body.reason).toBe('verified search engine: Applebot');
    expect((await decide({ ip: '57.152.72.128', ua: DDG })).body.reason).toBe('verified search engine: DuckDuckBot');
    expect((await decide({ ip: '20.171.206.1', ua: GPTBOT })).body.reason).toBe('verified bot: GPTBot');
    // Operators that publish ranges only: outside them the claim fails, still without DNS.
    expect((await decide({ ip: '198.51.100.30', ua: GPTBOT })).body).toMatchObject({
      action: 'deny',
      reason: 'unverified claim to be GPTBot',
    });
    expect((await decide({ ip: '198.51.100.31', ua: DDG })).body.reason).toBe('unverified claim to be DuckDuckBot');
    expect(dns.queries.length).toBe(asked);
  });

  it('answers protect() within its budget; the lookup finishes in the background and decides the next request', async () => {
    const ip = '192.0.2.88';
    publish(ip, '88.2.0.192.bc.googleusercontent.com');
    // Slower than the caller waits (60 % of its 500 ms), well within the lookup's own limit (1 s).
    dns.slowDown(reverseName(ip), 700);
    const ask = (ua = GOOGLEBOT) =>
      protect({
        secret: lenient.secret,
        collectUrl: `${t.url}/collect`,
        ip,
        method: 'GET',
        url: '/',
        host: lenient.hostname,
        headers: { 'user-agent': ua, accept: 'text/html' },
        budgetMs: 500,
      });
    // A browser's first: the connection to the service is open before the claim is timed.
    await expect
      .poll(async () => (await ask('Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0')).reason)
      .toBe('browser: no sign of automation');
    // Answered by the service within the budget (not the caller giving up at 500 ms): the claim follows `bots`.
    expect(await ask()).toMatchObject({
      do: 'serve',
      action: 'allow',
      reason: 'declared bot: Googlebot (bots: allow)',
      risk: -1,
    });
    // The service's verdict arrives after the DNS answer…
    await expect.poll(async () => (await verify({ ip, budgetMs: 1 })).body.verification).toBe('failed');
    // …and decides this address's next request at once.
    expect(await ask()).toMatchObject({ do: 'refuse', action: 'deny', reason: 'unverified claim to be Googlebot' });
  });

  it('a decide without a budget waits for DNS up to 300 ms, as before', async () => {
    const ip = '192.0.2.89';
    publish(ip, 'crawl-192-0-2-89.googlebot.com');
    dns.slowDown(reverseName(ip), 100);
    expect((await decideFor(t, site, { ip, ua: GOOGLEBOT, path: '/', host: site.hostname }).expect(200)).body.reason).toBe(
      'verified search engine: Googlebot',
    );
  });

  it('keeps verdicts per address: verified and failed a day, DNS that did not answer a minute', async () => {
    publish('192.0.2.90', 'crawl-192-0-2-90.googlebot.com');
    expect((await verify({ ip: '192.0.2.90' })).body).toEqual({
      verification: 'verified',
      bot: 'Googlebot',
      maxAgeSeconds: 86_400,
    });
    expect((await verify({ ip: '192.0.2.91' })).body).toMatchObject({ verification: 'failed', maxAgeSeconds: 86_400 });
    dns.fail(reverseName('192.0.2.92'));
    expect((await verify({ ip: '192.0.2.92' })).body).toMatchObject({ verification: 'unknown', maxAgeSeconds: 60 });
    const asked = dns.queries.length;
    for (const ip of ['192.0.2.90', '192.0.2.91', '192.0.2.92']) await verify({ ip });
    expect(dns.queries.length).toBe(asked);
    // Browsers are not looked up.
    expect((await verify({ ip: '192.0.2.93', ua: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' })).body).toMatchObject({
      verification: 'unknown',
      bot: null,
    });
    expect(dns.queries.length).toBe(asked);
  });

  it('the verify route takes the site secret and a well-formed request only', async () => {
    await t.request.post('/collect/verify').send({ ip: '192.0.2.94', ua: GOOGLEBOT }).expect(401);
    await t.request.get('/collect/verify').set('x-svc-proxy', site.secret).expect(405);
    const bad = (body: unknown) =>
      t.request
        .post('/collect/verify')
        .set('x-svc-proxy', site.secret)
        .send(body as object);
    expect((await bad({ ip: 'nowhere', ua: GOOGLEBOT }).expect(400)).body.field).toBe('ip');
    expect((await bad({ ip: '192.0.2.94', ua: GOOGLEBOT, budgetMs: 0 }).expect(400)).body.field).toBe('budgetMs');
    expect((await bad({ ip: '192.0.2.94', ua: GOOGLEBOT, extra: 1 }).expect(400)).status).toBe(400);
    expect((await bad({ ip: '192.0.2.94', ua: 'x'.repeat(3000) }).expect(413)).status).toBe(413);
  });
});
