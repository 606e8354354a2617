import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bundleWorker, SDK_ENTRY } from '../../../../../packages/edge/test/bundle.ts';
import { type DnsStandIn, reverseName, startDnsServer } from '../../support/dns-server.ts';
import { type GateSite, gateSite } from '../../support/gate.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** A zone without bot management: no platform verdict (Miniflare's own `cf` carries one, taken away here). */
const NO_VERDICT = { country: 'US', asn: 396982, asOrganization: 'Google Cloud', botManagement: null };

/**
 * The edge SDK in real workerd in front of an origin, asking the real service (with a real DNS server on
 * 127.0.0.1) about crawlers its platform gave no verdict on.
 */
describe('crawler verification through the edge worker', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let site: GateSite;
  let origin: Server;
  let edge: Miniflare;

  const visit = async (path: string, ip: string, cf: Record<string, unknown> = NO_VERDICT) => {
    const res = await edge.dispatchFetch(`https://${site.hostname}${path}`, {
      headers: { 'user-agent': GOOGLEBOT, 'cf-connecting-ip': ip, accept: '*/*' },
      cf,
    });
    return { status: res.status, text: await res.text() };
  };
  const serviceVerdict = async (ip: string) =>
    (await t.request.post('/collect/verify').set('x-svc-proxy', site.secret).send({ ip, ua: GOOGLEBOT, budgetMs: 1 }).expect(200))
      .body.verification;

  beforeAll(async () => {
    dns = await startDnsServer();
    t = await startTestServer({ env: { DNS_SERVERS: dns.address } });
    site = await gateSite(t, 'edge-verification.example', { mode: 'challenge', bots: 'allow' });
    origin = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`origin ${req.url}`));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    edge = new Miniflare({
      modules: true,
      script: await bundleWorker(`import { withUnseen } from ${JSON.stringify(SDK_ENTRY)};
export default withUnseen(async (req) => {
  const url = new URL(req.url);
  return fetch(${JSON.stringify(originBase)} + url.pathname + url.search);
}, { batchSize: 1 });`),
      bindings: { SVC_SECRET: site.secret, SVC_SITE_KEY: site.publicKey, SVC_COLLECT_URL: `${t.url}/collect` },
      compatibilityDate: '2024-09-23',
    });
    await edge.ready;
    // The isolate decides once it holds the site's config: a platform-refused "Googlebot" is then refused.
    await vi.waitFor(
      async () => {
        const warm = await visit('/warm-up', '198.51.100.250', { ...NO_VERDICT, botManagement: { verifiedBot: false } });
        expect(warm.status).toBe(403);
      },
      { timeout: 10_000, interval: 50 },
    );
  }, 60_000);
  afterAll(async () => {
    await edge?.dispose();
    origin?.closeAllConnections();
    await new Promise((r) => origin?.close(r));
    await t?.close();
    await dns?.close();
  });

  it('a fake Googlebot on a cloud VM is served while its lookup runs, and refused from its next request', async () => {
    const ip = '203.0.113.60';
    dns.setPtr(ip, ['60.113.0.203.bc.googleusercontent.com']);
    dns.setAddresses('60.113.0.203.bc.googleusercontent.com', [ip]);
    // Slower than the edge waits (50 ms).
    dns.slowDown(reverseName(ip), 300);
    const started = Date.now();
    expect(await visit('/first', ip)).toEqual({ status: 200, text: 'origin /first' });
    expect(Date.now() - started).toBeLessThan(300);
    // The service finishes the lookup in the background and keeps its verdict…
    await expect.poll(() => serviceVerdict(ip)).toBe('failed');
    // …so the edge's next question about this address is answered in time.
    const second = await visit('/second', ip);
    expect(second.status).toBe(403);
    expect(second.text).toContain('Access refused');
    // And the isolate keeps it: no further question reaches DNS.
    const asked = dns.queries.length;
    expect((await visit('/third', ip)).status).toBe(403);
    expect(dns.queries.length).toBe(asked);
  });

  it('real Googlebots are served: inside Google’s published ranges without DNS, elsewhere by their googlebot.com name', async () => {
    dns.setPtr('66.249.66.1', ['scraper.evil.example']);
    const asked = dns.queries.length;
    expect(await visit('/ranges', '66.249.66.1')).toEqual({ status: 200, text: 'origin /ranges' });
    expect(dns.queries.length).toBe(asked);
    dns.setPtr('192.0.2.66', ['crawl-192-0-2-66.googlebot.com']);
    dns.setAddresses('crawl-192-0-2-66.googlebot.com', ['192.0.2.66']);
    expect(await visit('/named', '192.0.2.66')).toEqual({ status: 200, text: 'origin /named' });
    await expect.poll(() => serviceVerdict('192.0.2.66')).toBe('verified');
    expect(dns.queries).toContain('crawl-192-0-2-66.googlebot.com');
  });

  it('the platform’s own verdict wins: the service is not asked', async () => {
    const ip = '203.0.113.61';
    const refused = await visit('/', ip, { ...NO_VERDICT, botManagement: { verifiedBot: false } });
    expect(refused.status).toBe(403);
    const served = await visit('/ok', ip, { ...NO_VERDICT, botManagement: { verifiedBot: true } });
    expect(served).toEqual({ status: 200, text: 'origin /ok' });
    expect(dns.queries).not.toContain(reverseName(ip));
  });
});
