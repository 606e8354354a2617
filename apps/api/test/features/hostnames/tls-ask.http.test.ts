import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { ownerWithSite } from '../../support/sites.ts';

const uniqueHost = (tag: string) => `${tag}.t${randomBytes(5).toString('hex')}.example.test`;

/** Caddy's on-demand TLS asks the service before getting a certificate for a name (infra/caddy/Caddyfile). */
describe('GET /proxy/tls-ask', () => {
  let t: TestServer;
  const hosts = {
    builtInLive: uniqueHost('live'),
    edgeLive: uniqueHost('edge'),
    pending: uniqueHost('pending'),
    ordinaryVerified: uniqueHost('plain'),
    removed: uniqueHost('removed'),
  };
  let siteId = '';
  let auth = '';

  beforeAll(async () => {
    t = await startTestServer();
    const o = await ownerWithSite(t, { plan: 'Business' });
    siteId = o.site.id;
    auth = o.auth;
    const em = t.deps.orm.em.fork();
    const row = (hostname: string, fields: Partial<SiteHostname>) =>
      em.create(SiteHostname, { site: siteId, hostname, verifyToken: 'a'.repeat(32), ...fields } as never);
    const origin = 'https://origin.example.test';
    row(hosts.builtInLive, { proxy: true, origin, edgeStatus: 'active', verifiedAt: new Date() });
    row(hosts.edgeLive, { proxy: true, origin, edgeId: 'edge-1', edgeStatus: 'active', verifiedAt: new Date() });
    row(hosts.pending, { proxy: true, origin, edgeStatus: 'pending' });
    row(hosts.ordinaryVerified, { verifiedAt: new Date() });
    row(hosts.removed, { proxy: true, origin, edgeStatus: 'active', verifiedAt: new Date() });
    await em.flush();
  });
  afterAll(async () => {
    await t.close();
  });

  const ask = (domain?: string) => t.request.get('/proxy/tls-ask').query(domain === undefined ? {} : { domain });

  it('answers 200 for a live proxy-mode hostname (any letter case, a trailing dot)', async () => {
    expect((await ask(hosts.builtInLive).expect(200)).body).toEqual({ hostname: hosts.builtInLive, live: true });
    await ask(hosts.edgeLive).expect(200);
    await ask(`${hosts.builtInLive.toUpperCase()}.`).expect(200);
  });

  it('answers 404 for a pending proxy hostname, an ordinary hostname and a name nobody registered', async () => {
    for (const name of [hosts.pending, hosts.ordinaryVerified, uniqueHost('nobody'), 'localhost.localdomain']) {
      const problem = expectProblem(await ask(name), 404);
      expect(problem.title).toContain('not a live proxy-mode hostname');
    }
  });

  // The attack: the public hostname's proxy forwarded /proxy/tls-ask from outside: a made-up name per request was a
  // database lookup per request, and the answers listed which hostnames are live.
  it('answers 404 to a request forwarded by a proxy, live hostname or not, without looking it up', async () => {
    const problem = expectProblem(
      await t.request.get('/proxy/tls-ask').query({ domain: hosts.builtInLive }).set('X-Forwarded-For', '203.0.113.5'),
      404,
    );
    expect(problem.title).toContain('ingress next to the service only');
  });

  it('answers 400 without one valid hostname', async () => {
    expectProblem(await ask(), 400, 'domain');
    for (const bad of [
      '',
      'https://shop.example.com',
      'shop.example.com:443',
      '127.0.0.1',
      'a'.repeat(300),
      'sh op.example.com',
    ]) {
      expectProblem(await ask(bad), 400, 'domain');
    }
    expectProblem(await t.request.get(`/proxy/tls-ask?domain=a.example.com&domain=b.example.com`), 400, 'domain');
  });

  it('a hostname removed stops getting certificates within seconds', async () => {
    await ask(hosts.removed).expect(200);
    await t.request.delete(`/v1/sites/${siteId}/hostnames/${hosts.removed}`).set('Authorization', auth).expect(204);
    await expect.poll(async () => (await ask(hosts.removed)).status, { timeout: 10_000, interval: 250 }).toBe(404);
  });
});
