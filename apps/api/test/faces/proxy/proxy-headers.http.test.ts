import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, proxySite, startOrigin, viaProxy } from '../../support/proxy.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const HOST = 'shop.proxy-headers.example';

/** Header hygiene both ways: what is the connection's, or the service's, never crosses the proxy. */
describe('proxy mode: header hygiene', () => {
  let t: TestServer;
  let origin: Origin;
  let secret: string;

  beforeAll(async () => {
    origin = await startOrigin();
    // No trusted proxy in front: whatever X-Forwarded-* the client sends is its own claim.
    t = await startTestServer();
    secret = (await proxySite(t, HOST, origin.url, { mode: 'challenge' })).secret;
  });
  afterAll(async () => {
    await t?.close();
    await origin?.close();
  });

  it('sends the origin the request without hop-by-hop headers, the service’s headers and cookies, or the client’s forwarding claims', async () => {
    const res = await viaProxy(t, HOST, '/clean', {
      headers: {
        connection: 'keep-alive, X-Hop-Listed',
        'x-hop-listed': 'only for the next hop',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        upgrade: 'websocket',
        'proxy-authorization': 'Basic cHJveHk6cHJveHk=',
        forwarded: 'for=203.0.113.66;proto=https',
        'x-real-ip': '203.0.113.66',
        'x-forwarded-for': '203.0.113.66',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        'x-svc-proxy': secret,
        'x-svc-client-ip': '203.0.113.66',
        cookie: 'us_session=abc; theme=dark; us_pass=1700000000.AAAA; us_internal=mark; cart=3',
        authorization: 'Bearer the-app-s-own',
        'x-app': 'kept',
      },
    });
    expect(res.status).toBe(200);
    const [got] = origin.got('/clean');
    const names = Object.keys(got?.headers ?? {});
    for (const gone of [
      'x-hop-listed',
      'keep-alive',
      'te',
      'upgrade',
      'proxy-authorization',
      'forwarded',
      'x-real-ip',
      'x-svc-proxy',
      'x-svc-client-ip',
    ]) {
      expect(names, gone).not.toContain(gone);
    }
    expect(got?.headers.cookie).toBe('theme=dark; cart=3');
    expect(got?.headers.authorization).toBe('Bearer the-app-s-own');
    expect(got?.headers['x-app']).toBe('kept');
    // Set by the proxy alone: the connection's address and scheme, the Host the visitor asked for.
    expect(got?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(got?.headers['x-forwarded-proto']).toBe('http');
    expect(got?.headers['x-forwarded-host']).toBe(HOST);
    // The passes through proxy mode, the client's own claim dropped with the other x-svc- headers.
    expect(got?.headers['x-svc-proxy-hops']).toBe('1');
  });

  // The attack: an origin that leads back to the proxy (two proxy hostnames pointing at each other, or a server that
  // sends every request back) made each visit a new proxied request, over and over through the shared ingress.
  it('an origin that leads back to the proxy: the visitor gets 502 problem+json after two passes', async () => {
    const before = origin.seen.length;
    origin.answer((req, res) => {
      const back = request(
        {
          host: '127.0.0.1',
          port: Number(new URL(t.url).port),
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: HOST },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      back.on('error', () => res.destroy());
      req.pipe(back);
    });
    try {
      const res = await viaProxy(t, HOST, '/round-and-round');
      expect(res.status).toBe(502);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.body)).toMatchObject({ status: 502, title: expect.stringMatching(/leads back to this proxy/) });
      expect(origin.seen.length - before).toBe(2);
    } finally {
      origin.reset();
    }
  });

  it('sends the visitor the answer without hop-by-hop headers, the service’s headers, or cookies of the service', async () => {
    origin.answer((_req, res) => {
      res.setHeader('connection', 'x-internal-hop');
      res.setHeader('x-internal-hop', 'between origin and proxy');
      res.setHeader('keep-alive', 'timeout=99');
      res.setHeader('proxy-authenticate', 'Basic realm="origin"');
      res.setHeader('x-svc-logging', 'paused');
      res.setHeader('set-cookie', [
        'us_pass=forged; Path=/; HttpOnly',
        'us_session=stolen; Path=/',
        'us_internal=planted; Path=/',
        'theme=light; Path=/',
      ]);
      res.setHeader('x-app-answer', 'ok');
      res.end('answer');
    });
    try {
      const res = await viaProxy(t, HOST, '/answer');
      expect(res.status).toBe(200);
      expect(res.body).toBe('answer');
      expect(res.headers['x-app-answer']).toBe('ok');
      expect(res.headers['set-cookie']).toEqual(['theme=light; Path=/']);
      expect(res.headers['x-internal-hop']).toBeUndefined();
      expect(res.headers['proxy-authenticate']).toBeUndefined();
      expect(res.headers['x-svc-logging']).toBeUndefined();
      expect(res.headers['keep-alive']).not.toBe('timeout=99');
    } finally {
      origin.reset();
    }
  });
});
