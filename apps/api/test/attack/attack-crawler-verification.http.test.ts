import { randomBytes } from 'node:crypto';
import { type BotInfo, classifyUserAgent } from '@us/protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCrawler } from '../../src/features/protection/crawler-verification.ts';
import { lookupsInFlight, VERIFICATION_BUDGET } from '../../src/features/protection/verification-budget.ts';
import { BROWSER_UA } from '../support/collect.ts';
import { type DnsStandIn, reverseName, startDnsServer } from '../support/dns-server.ts';
import { decideFor, type GateSite, gateSite } from '../support/gate.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const googlebot = classifyUserAgent(GOOGLEBOT).bot as BotInfo;

/**
 * Strangers spending the crawler lookups: made-up crawler claims from many addresses cost their own
 * network's share (its /24 or /48), never the site's or the node's, so real crawlers on other networks are
 * still verified and other sites still decided.
 */
describe('attacks on crawler verification', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let site: GateSite;
  let other: GateSite;
  /** The PTR questions asked about these addresses. */
  const askedAbout = (ips: string[]) => {
    const names = new Set(ips.map(reverseName));
    return dns.queries.filter((q) => names.has(q)).length;
  };
  const claim = (ip: string, s: GateSite = site) =>
    decideFor(t, s, { ip, ua: GOOGLEBOT, path: '/', host: s.hostname, budgetMs: 5000 }).expect(200);

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ hot: 'memory', env: { DNS_SERVERS: dns.address } });
    site = await gateSite(t, 'verify-attack.example', { mode: 'challenge', bots: 'challenge' });
    other = await gateSite(t, 'verify-attack-other.example', { mode: 'challenge', bots: 'challenge' });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('one client with a whole /24 of fake Googlebots gets its share of lookups; a real Googlebot elsewhere is still verified', async () => {
    const flood = Array.from({ length: 100 }, (_, i) => `203.0.113.${i + 1}`);
    const reasons: string[] = [];
    for (const ip of flood) reasons.push((await claim(ip)).body.reason);
    // No PTR for any of them: the share's lookups refuse the claim; past the share nothing is asked.
    expect(askedAbout(flood)).toBe(VERIFICATION_BUDGET.perNetworkPerMinute);
    expect(reasons.slice(0, VERIFICATION_BUDGET.perNetworkPerMinute).every((r) => r === 'unverified claim to be Googlebot')).toBe(
      true,
    );
    expect(
      reasons.slice(VERIFICATION_BUDGET.perNetworkPerMinute).every((r) => r === 'declared bot: Googlebot (bots: challenge)'),
    ).toBe(true);
    // An address of Google's own, outside the published ranges: looked up and verified.
    dns.setPtr('192.0.2.66', ['crawl-192-0-2-66.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-66.googlebot.com', ['192.0.2.66']);
    expect((await claim('192.0.2.66')).body.reason).toBe('verified search engine: Googlebot');
    // Another site's visitors are decided as ever.
    expect(
      (await decideFor(t, other, { ip: '198.51.100.4', ua: BROWSER_UA, path: '/', host: other.hostname }).expect(200)).body,
    ).toMatchObject({ action: 'allow', reason: 'browser: no sign of automation' });
  });

  // The attack: one customer, through its own site's decide route, names addresses of a real crawler's network.
  // The network's share was one for every site: after 20 such claims, the real crawler went unverified everywhere.
  it("a customer naming a crawler's network at its own site spends that site's share of it, not another site's", async () => {
    const crawlerNet = Array.from({ length: VERIFICATION_BUDGET.perNetworkPerMinute + 5 }, (_, i) => `192.0.2.${i + 100}`);
    for (const ip of crawlerNet) await claim(ip, other);
    dns.setPtr('192.0.2.200', ['crawl-192-0-2-200.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-200.googlebot.com', ['192.0.2.200']);
    expect((await claim('192.0.2.200', site)).body.reason).toBe('verified search engine: Googlebot');
  });

  it('three /24s of made-up claims, more than the site’s whole budget, leave that budget for everyone else', async () => {
    const networks = ['203.0.114', '203.0.115', '203.0.116'];
    const flood = networks.flatMap((net) => Array.from({ length: 250 }, (_, i) => `${net}.${i + 1}`));
    expect(flood.length).toBeGreaterThan(VERIFICATION_BUDGET.perSitePerMinute);
    // One claim per network at a time, each waited for, so every one would be looked up without the shares.
    for (let i = 0; i < 250; i++) {
      await Promise.all(networks.map((net) => verifyCrawler(t.deps, site.siteId, googlebot, `${net}.${i + 1}`, 5000)));
    }
    expect(askedAbout(flood)).toBe(networks.length * VERIFICATION_BUDGET.perNetworkPerMinute);
    dns.setPtr('192.0.2.68', ['crawl-192-0-2-68.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-68.googlebot.com', ['192.0.2.68']);
    expect((await claim('192.0.2.68')).body.reason).toBe('verified search engine: Googlebot');
  });

  it('an IPv6 client’s /64s are one network: its /48 has one share', async () => {
    const flood = Array.from({ length: 40 }, (_, i) => `2001:db8:77:${i.toString(16)}::1`);
    for (const ip of flood) await claim(ip);
    expect(askedAbout(flood)).toBe(VERIFICATION_BUDGET.perNetworkPerMinute);
  });

  it('slow lookups of one network hold at most its few slots: a claim from another network is answered meanwhile', async () => {
    const slow = Array.from({ length: 12 }, (_, i) => `198.51.100.${i + 100}`);
    // Never answered in time: each lookup holds its slot until its own limit (1 s).
    for (const ip of slow) dns.slowDown(reverseName(ip), 3000);
    // All at once, each waited for only briefly (as an edge would).
    const answers = await Promise.all(
      slow.map((ip) => decideFor(t, site, { ip, ua: GOOGLEBOT, path: '/', host: site.hostname, budgetMs: 50 }).expect(200)),
    );
    expect(answers.every((a) => a.body.reason === 'declared bot: Googlebot (bots: challenge)')).toBe(true);
    expect(askedAbout(slow)).toBe(VERIFICATION_BUDGET.inFlightPerNetwork);
    // While those lookups run, a claim from another network gets a slot and its verdict.
    dns.setPtr('192.0.2.67', ['crawl-192-0-2-67.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-67.googlebot.com', ['192.0.2.67']);
    expect((await claim('192.0.2.67')).body.reason).toBe('verified search engine: Googlebot');
    await expect.poll(lookupsInFlight).toBe(0);
  });

  it('one site naming slow crawler addresses of many networks holds at most its share of the slots: another site is looked up meanwhile', async () => {
    const flooding = `budget-${randomBytes(4).toString('hex')}`;
    const burst = Array.from({ length: 70 }, (_, i) => `100.67.${i}.1`);
    for (const ip of burst) dns.slowDown(reverseName(ip), 3000);
    const verdicts = await Promise.all(burst.map((ip) => verifyCrawler(t.deps, flooding, googlebot, ip, 50)));
    expect(verdicts.every((v) => v.verification === 'unknown')).toBe(true);
    expect(askedAbout(burst)).toBe(VERIFICATION_BUDGET.inFlightPerSite);
    // While they run, a real Googlebot at another site is verified.
    dns.setPtr('192.0.2.68', ['crawl-192-0-2-68.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-68.googlebot.com', ['192.0.2.68']);
    expect((await claim('192.0.2.68', other)).body.reason).toBe('verified search engine: Googlebot');
    await expect.poll(lookupsInFlight, { timeout: 10_000 }).toBe(0);
  });

  it('many sites and networks: at most 64 lookups in flight per node, and 600 fresh ones per site a minute, each counted before looking', async () => {
    // Five sites of 16 networks at once, every lookup slow: the node's slots fill, the rest are not asked about.
    const sites = Array.from({ length: 5 }, () => `budget-${randomBytes(4).toString('hex')}`);
    const burst = sites.flatMap((siteId, s) =>
      Array.from({ length: VERIFICATION_BUDGET.inFlightPerSite }, (_, i) => ({ siteId, ip: `100.65.${s * 16 + i}.1` })),
    );
    for (const { ip } of burst) dns.slowDown(reverseName(ip), 800);
    const verdicts = await Promise.all(burst.map(({ siteId, ip }) => verifyCrawler(t.deps, siteId, googlebot, ip, 50)));
    expect(verdicts.every((v) => v.verification === 'unknown' && v.maxAgeSeconds === 0)).toBe(true);
    // The lookups started reach the DNS server a moment after their answers (a loaded machine: half of them by then).
    await expect.poll(() => askedAbout(burst.map((b) => b.ip))).toBe(VERIFICATION_BUDGET.inFlight);
    await expect.poll(lookupsInFlight).toBe(0);
    expect(askedAbout(burst.map((b) => b.ip))).toBe(VERIFICATION_BUDGET.inFlight);
    // Another site's budget, from 50 networks of 12 addresses, waited for in full, a site's share at a time (one per network).
    const otherSite = `budget-${randomBytes(4).toString('hex')}`;
    const spread = Array.from(
      { length: VERIFICATION_BUDGET.perSitePerMinute },
      (_, k) => `100.64.${k % 50}.${Math.floor(k / 50)}`,
    );
    const answered: string[] = [];
    for (let i = 0; i < spread.length; i += VERIFICATION_BUDGET.inFlightPerSite) {
      const group = spread.slice(i, i + VERIFICATION_BUDGET.inFlightPerSite);
      answered.push(
        ...(await Promise.all(group.map((ip) => verifyCrawler(t.deps, otherSite, googlebot, ip, 5000)))).map(
          (v) => v.verification,
        ),
      );
    }
    expect(answered.every((v) => v === 'failed')).toBe(true);
    const asked = dns.queries.length;
    expect(await verifyCrawler(t.deps, otherSite, googlebot, '100.66.0.1', 5000)).toEqual({
      verification: 'unknown',
      maxAgeSeconds: 0,
    });
    expect(dns.queries.length).toBe(asked);
  });
});
