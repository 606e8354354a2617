import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, proxySite, startOrigin, viaProxy } from '../support/proxy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ownerWithSite } from '../support/sites.ts';

/**
 * The attack: a customer makes a proxy-mode hostname of their own domain whose origin is the service's own
 * network (its metrics port on 127.0.0.1, cloud metadata at 169.254.169.254, a neighbour at 10.0.0.5), sets
 * the two DNS records, and asks for any path with that Host: the service fetched it and handed the answer
 * back. Here "the service's network" is a server on 127.0.0.1 that must see no request. (Every other test
 * server lets origins be loopback stand-ins: PROXY_PRIVATE_ORIGINS.)
 */
describe('attack: a proxy origin on the service’s own network', () => {
  let t: TestServer;
  let internal: Origin;
  beforeAll(async () => {
    internal = await startOrigin();
    t = await startTestServer({ env: { PROXY_PRIVATE_ORIGINS: 'false', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
    await internal?.close();
  });

  it('refuses a private, loopback, link-local or local-name origin when the hostname is added (400 origin)', async () => {
    const o = await ownerWithSite(t, { siteName: 'Shop' });
    const port = new URL(internal.url).port;
    for (const origin of [
      internal.url,
      `http://localhost:${port}`,
      'http://169.254.169.254',
      'http://10.0.0.5',
      'http://[::1]:9464',
      'http://[::ffff:127.0.0.1]:9464',
      'https://metadata',
    ]) {
      const res = await t.request
        .post(`/v1/sites/${o.site.id}/hostnames`)
        .set('Authorization', o.auth)
        .send({ hostname: 'shop.ssrf-attack.example', proxy: true, origin });
      expect(res.status, origin).toBe(400);
      expect(res.body.field).toBe('origin');
      expect(res.body.title).toMatch(/public/);
    }
  });

  it('never connects to one already stored (an address, or a name that resolves to one): 502, nothing reaches it', async () => {
    const port = new URL(internal.url).port;
    for (const [host, origin] of [
      ['a.ssrf-stored.example', internal.url],
      ['b.ssrf-stored.example', `http://localhost:${port}`],
    ] as const) {
      await proxySite(t, host, origin, { mode: 'off' });
      const answer = await viaProxy(t, host, '/metrics');
      expect(answer.status, origin).toBe(502);
      expect(answer.body).not.toContain('origin GET');
    }
    expect(internal.seen).toEqual([]);
  });
});
