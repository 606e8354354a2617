import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitorSigns } from '../../../src/features/protection/behaviour.ts';
import { visitorCodeOf } from '../../../src/features/protection/visitor-code.ts';
import type { GateSite } from '../../support/gate.ts';
import { type Origin, proxySite, startOrigin, storedRequests, viaProxy } from '../../support/proxy.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const HOST = 'shop.proxy-traffic.example';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A live proxy hostname's traffic goes through the service to its origin and back, and is recorded. */
describe('proxy mode: the traffic path', () => {
  let t: TestServer;
  let origin: Origin;
  let site: GateSite;

  beforeAll(async () => {
    origin = await startOrigin();
    // As behind the TLS ingress: one trusted hop names the visitor's address.
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    site = await proxySite(t, HOST, origin.url, { mode: 'challenge' });
  });
  afterAll(async () => {
    await t?.close();
    await origin?.close();
  });

  it('forwards a GET to the origin with its path and query, and passes status, headers and body back', async () => {
    const res = await viaProxy(t, HOST, '/products/1?colour=red', { from: '198.51.100.21' });
    expect(res.status).toBe(200);
    expect(res.headers['x-origin']).toBe('yes');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('origin GET /products/1?colour=red');
    const [got] = origin.got('/products/1?colour=red');
    // The origin is reached under its own name; the visitor's host, address and scheme come as X-Forwarded-*.
    expect(got?.headers.host).toBe(new URL(origin.url).host);
    expect(got?.headers['x-forwarded-host']).toBe(HOST);
    expect(got?.headers['x-forwarded-proto']).toBe('https');
    expect(got?.headers['x-forwarded-for']).toBe('198.51.100.21, 127.0.0.1');
  });

  it('streams a POST body to the origin and its answer back as they come, both ways at once', async () => {
    origin.answer((req, res) => {
      res.writeHead(201, { 'content-type': 'text/plain' });
      req.on('data', (c: Buffer) => res.write(`echo:${c.toString()};`));
      req.on('end', () => res.end('done'));
    });
    try {
      const target = new URL(t.url);
      const received: string[] = [];
      let status = 0;
      let notify: () => void = () => {};
      const req = request({
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/upload',
        agent: false,
        headers: { host: HOST, 'user-agent': CHROME, 'content-type': 'text/plain', 'x-forwarded-for': '198.51.100.22' },
      });
      const ended = new Promise<void>((resolve, reject) => {
        req.on('response', (res) => {
          status = res.statusCode ?? 0;
          res.on('data', (c: Buffer) => {
            received.push(c.toString());
            notify();
          });
          res.on('end', resolve);
        });
        req.on('error', reject);
      });
      const echoed = (part: string) =>
        new Promise<void>((resolve) => {
          notify = () => received.join('').includes(`echo:${part};`) && resolve();
          notify();
        });
      // Each part goes only once the origin's echo of the last came back: a proxy holding either body whole waits forever.
      req.write('first');
      await echoed('first');
      req.write('second');
      await echoed('second');
      req.end();
      await ended;
      expect(status).toBe(201);
      expect(received.join('')).toBe('echo:first;echo:second;done');
    } finally {
      origin.reset();
    }
  });

  it("passes the origin's redirects on, pointing those to the origin itself at the visitor's host", async () => {
    origin.answer((req, res) => {
      const to: Record<string, string> = {
        '/old': '/new',
        '/self': `${origin.url}/login?next=%2F`,
        '/away': 'https://elsewhere.example/x',
      };
      res.writeHead(302, { location: to[req.url ?? ''] ?? '/' });
      res.end();
    });
    try {
      expect((await viaProxy(t, HOST, '/old')).headers.location).toBe('/new');
      expect((await viaProxy(t, HOST, '/self')).headers.location).toBe(`https://${HOST}/login?next=%2F`);
      const away = await viaProxy(t, HOST, '/away');
      expect(away.status).toBe(302);
      expect(away.headers.location).toBe('https://elsewhere.example/x');
    } finally {
      origin.reset();
    }
  });

  it('records each request with its decision, status and method, counted in the month’s usage', async () => {
    const usage = async () =>
      Number(
        (
          (await t.deps.orm.em
            .fork()
            .execute(
              `select coalesce(sum(u.requests), 0) as n from usage_months u join sites s on s.workspace_id = u.workspace_id where s.id = ?`,
              [site.siteId],
            )) as { n: string }[]
        )[0]?.n,
      );
    const before = await usage();
    await viaProxy(t, HOST, '/recorded?x=1', { from: '198.51.100.23' });
    await viaProxy(t, HOST, '/recorded-post', { method: 'POST', body: 'a=1', from: '198.51.100.23' });
    await expect
      .poll(async () => (await storedRequests(t, site.siteId)).filter((r) => r.path.startsWith('/recorded')))
      .toEqual([
        expect.objectContaining({
          path: '/recorded',
          method: 'GET',
          status: 200,
          decision: 'allow',
          reason: 'browser: no sign of automation',
          risk: 0,
        }),
        expect.objectContaining({ path: '/recorded-post', method: 'POST', status: 200, decision: 'allow' }),
      ]);
    expect(await usage()).toBeGreaterThanOrEqual(before + 2);
  });

  it('feeds behaviour memory: a visitor loading pages in a burst gets the burst sign', async () => {
    const ip = '198.51.100.24';
    for (let i = 0; i < 35; i++) await viaProxy(t, HOST, `/page-${i}`, { from: ip, headers: { accept: 'text/html' } });
    const code = await visitorCodeOf(t.deps.hot, site.siteId, ip, CHROME);
    await expect.poll(() => visitorSigns(t.deps, site.siteId, code)).toContain('burst');
  });

  it('decides but never records a request sent with Sec-GPC: 1', async () => {
    const gpc = await viaProxy(t, HOST, '/private-gpc', { headers: { 'sec-gpc': '1' } });
    expect(gpc.status).toBe(200);
    expect(origin.got('/private-gpc')).toHaveLength(1);
    await viaProxy(t, HOST, '/after-gpc');
    await expect.poll(async () => (await storedRequests(t, site.siteId)).map((r) => r.path)).toContain('/after-gpc');
    expect((await storedRequests(t, site.siteId)).map((r) => r.path)).not.toContain('/private-gpc');
  });
});
