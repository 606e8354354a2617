import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpSitesGeneration } from '../../src/core/hot/generations.ts';
import { PROXY_LIMITS } from '../../src/faces/proxy/limits.ts';
import { visitorSigns } from '../../src/features/protection/behaviour.ts';
import { visitorCodeOf } from '../../src/features/protection/visitor-code.ts';
import { gateSite } from '../support/gate.ts';
import { type Origin, proxySite, startOrigin, storedRequests, viaProxy } from '../support/proxy.ts';
import { signIn, startTestServer, type TestServer } from '../support/server.ts';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const APP_HOST = 'app.attack-proxy.example';

/**
 * Strangers against the service's own proxy (TRUST_PROXY with one hop, as behind the TLS ingress): forged
 * forwarding headers, the service's cookies sent or set, Hosts that are not live proxy hostnames. After each
 * attempt a bystander site's proxied traffic is still forwarded, decided and recorded.
 */
describe('attack: proxy mode', () => {
  let t: TestServer;
  let targetOrigin: Origin;
  let bystanderOrigin: Origin;
  let target: Awaited<ReturnType<typeof proxySite>>;
  let bystander: Awaited<ReturnType<typeof proxySite>>;
  let n = 0;

  beforeAll(async () => {
    targetOrigin = await startOrigin();
    bystanderOrigin = await startOrigin();
    t = await startTestServer({ env: { TRUST_PROXY: 'true', APP_URL: `http://${APP_HOST}` } });
    target = await proxySite(t, 'shop.attack-proxy.example', targetOrigin.url, { mode: 'challenge' });
    bystander = await proxySite(t, 'www.bystander-proxy.example', bystanderOrigin.url, { mode: 'challenge' });
  });
  afterAll(async () => {
    await t?.close();
    await targetOrigin?.close();
    await bystanderOrigin?.close();
  });

  /** A bystander's visitor is forwarded to its own origin, and the request is recorded with its decision. */
  async function bystanderStillServed() {
    const path = `/bystander-${++n}`;
    const res = await viaProxy(t, bystander.hostname, path, { from: '198.51.100.99' });
    expect(res.status).toBe(200);
    expect(res.body).toBe(`origin GET ${path}`);
    await expect
      .poll(async () => (await storedRequests(t, bystander.siteId)).find((r) => r.path === path))
      .toMatchObject({ status: 200, decision: 'allow', reason: 'browser: no sign of automation' });
  }

  it('a forged X-Forwarded-For is neither believed nor passed on: the gate and behaviour memory see the address our hop saw', async () => {
    const real = '198.51.100.60';
    for (let i = 0; i < 35; i++) {
      // The client writes the left entries; the trusted hop appends the address it saw.
      await viaProxy(t, target.hostname, `/burst-${i}`, {
        from: `203.0.113.${i + 1}, ${real}`,
        headers: { accept: 'text/html' },
      });
    }
    const got = targetOrigin.got('/burst-0')[0];
    expect(got?.headers['x-forwarded-for']).toBe(`${real}, 127.0.0.1`);
    const signsOf = async (ip: string) =>
      visitorSigns(t.deps, target.siteId, await visitorCodeOf(t.deps.hot, target.siteId, ip, CHROME));
    await expect.poll(() => signsOf(real)).toContain('burst');
    expect(await signsOf('203.0.113.1')).toEqual([]);
    await bystanderStillServed();
  });

  it('the service’s cookies and secret sent to a proxied host never reach its origin', async () => {
    const owner = await gateSite(t, `own-${randomBytes(4).toString('hex')}.example`);
    const session = await signIn(t, owner.ownerEmail);
    await viaProxy(t, target.hostname, '/steal', {
      headers: { cookie: `${session}; us_pass=1700000000.AAAA; us_internal=mark; seen=1`, 'x-svc-proxy': target.secret },
    });
    const [got] = targetOrigin.got('/steal');
    expect(got?.headers.cookie).toBe('seen=1');
    expect(JSON.stringify(got?.headers)).not.toContain(session.split('=')[1] as string);
    expect(JSON.stringify(got?.headers)).not.toContain(target.secret);
    await bystanderStillServed();
  });

  it('an origin cannot set the service’s cookies on its visitors', async () => {
    targetOrigin.answer((_req, res) => {
      res.setHeader('set-cookie', [
        'us_pass=9999999999.forged; Path=/; HttpOnly',
        'us_session=planted; Path=/',
        'cart=1; Path=/',
      ]);
      res.end('cookies');
    });
    try {
      const res = await viaProxy(t, target.hostname, '/plant');
      expect(res.body).toBe('cookies');
      expect(res.headers['set-cookie']).toEqual(['cart=1; Path=/']);
    } finally {
      targetOrigin.reset();
    }
    await bystanderStillServed();
  });

  it('a Host that is not a live proxy hostname is never proxied: pending, another site’s own hostname, the service’s, made up', async () => {
    const em = t.deps.orm.em.fork();
    const pending = 'pending.attack-proxy.example';
    em.create(SiteHostname, {
      site: target.siteId,
      hostname: pending,
      verifyToken: 'v'.repeat(32),
      proxy: true,
      origin: targetOrigin.url,
      edgeStatus: 'pending',
    });
    // A site claiming the service's own hostname as a live proxy hostname.
    em.create(SiteHostname, {
      site: target.siteId,
      hostname: APP_HOST,
      verifyToken: 'v'.repeat(32),
      proxy: true,
      origin: targetOrigin.url,
      edgeStatus: 'active',
    });
    await em.flush();
    const plain = await gateSite(t, 'verified-not-proxied.attack-proxy.example');
    const before = targetOrigin.seen.length;
    const hosts = [pending, APP_HOST, plain.hostname, ...Array.from({ length: 50 }, (_, i) => `made-up-${i}.example`)];
    for (const host of hosts) {
      // The service answers for itself (its health route), as for any Host that is not proxied.
      const res = await viaProxy(t, host, '/healthz');
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body), host).toEqual({ status: 'ok' });
    }
    expect(targetOrigin.seen.length).toBe(before);
    await bystanderStillServed();
  });

  it(`made-up Hosts from one address cost ${PROXY_LIMITS.hostLookupsPerAddress} lookups a minute, then 429 without one; live hostnames and other addresses go on`, async () => {
    // Each Host this node holds no answer for is looked up in the database: a new name per request was a query
    // per request on the shared pool.
    const from = '203.0.113.77';
    // The bystander's route fresh in this node's cache (as a busy live hostname's is).
    await bystanderStillServed();
    const statuses: number[] = [];
    for (let i = 0; i < PROXY_LIMITS.hostLookupsPerAddress + 5; i++) {
      statuses.push((await viaProxy(t, `flood-${i}-${randomBytes(4).toString('hex')}.example`, '/healthz', { from })).status);
    }
    expect(statuses.slice(0, PROXY_LIMITS.hostLookupsPerAddress).every((s) => s === 200)).toBe(true);
    const refused = await viaProxy(t, 'one-more.example', '/healthz', { from });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(statuses.slice(PROXY_LIMITS.hostLookupsPerAddress)).toEqual([429, 429, 429, 429, 429]);
    // A live proxy hostname the node knows still goes through from that address, and others are not held back.
    expect((await viaProxy(t, bystander.hostname, '/from-the-flooder', { from })).status).toBe(200);
    // Also once a site's change has dropped the node's routes: a name that was live is looked up again without
    // the address's budget. (The drop is seen when a name that became live meanwhile is proxied.)
    const late = 'late.attack-proxy.example';
    expect((await viaProxy(t, late, '/healthz', { from: '198.51.100.97' })).status).toBe(200);
    await proxySite(t, late, targetOrigin.url, { mode: 'challenge' });
    await expect
      .poll(async () => (await viaProxy(t, late, '/after-the-drop', { from: '198.51.100.97' })).body)
      .toBe('origin GET /after-the-drop');
    expect((await viaProxy(t, bystander.hostname, '/after-a-drop', { from })).status).toBe(200);
    expect((await viaProxy(t, 'another-made-up.example', '/healthz', { from: '198.51.100.98' })).status).toBe(200);
    await bystanderStillServed();
  });

  it('a hostname that stops being live stops being proxied within about a second', async () => {
    const host = 'leaving.attack-proxy.example';
    const leaving = await proxySite(t, host, targetOrigin.url, { mode: 'challenge' });
    expect((await viaProxy(t, host, '/still-here')).body).toBe('origin GET /still-here');
    await t.deps.orm.em.fork().nativeUpdate(SiteHostname, { site: leaving.siteId, hostname: host }, { edgeStatus: 'moved' });
    await bumpSitesGeneration(t.deps.hot);
    await expect.poll(async () => (await viaProxy(t, host, '/healthz')).body).toBe('{"status":"ok"}');
    await bystanderStillServed();
  });
});
