import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestBatch } from '../../shared/src/schemas/collect.ts';
import { proxyHeaders } from '../src/proxy-headers.ts';

const SECRET = 'sk_live_testsecret123';
const KEY = 'pk_abcdefghijklmnopqrstuvwxyz';
const srcIndex = fileURLToPath(new URL('../src/index.ts', import.meta.url));

interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base = '';
const captured: Captured[] = [];
/** How many upcoming batch posts the capture server answers with 503. */
let failNext = 0;

async function bundle(options: string): Promise<string> {
  const out = await build({
    stdin: {
      contents: `import { withUnseen } from ${JSON.stringify(srcIndex)};
export default withUnseen(async (req) => new Response('origin ' + new URL(req.url).pathname, {
  status: new URL(req.url).pathname === '/missing' ? 404 : 200,
  headers: { 'cf-cache-status': 'HIT', 'x-origin': 'yes' },
}), ${options});`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
  });
  return out.outputFiles[0]!.text;
}

const instances: Miniflare[] = [];
async function start(script: string, bindings: Record<string, string>): Promise<Miniflare> {
  const mf = new Miniflare({ modules: true, script, bindings, compatibilityDate: '2024-09-23' });
  instances.push(mf);
  await mf.ready;
  return mf;
}

async function waitFor<T>(fn: () => T | undefined, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

const batches = () => captured.filter((c) => c.url === '/collect/requests');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      captured.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url?.startsWith('/_us/')) {
        res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'us_pass=abc; Path=/; HttpOnly' });
        res.end('service ' + req.url);
        return;
      }
      if (req.url === '/collect/requests' && failNext > 0) {
        failNext--;
        res.writeHead(503).end();
        return;
      }
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  while (instances.length) await instances.pop()!.dispose();
  captured.length = 0;
  failNext = 0;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('withUnseen (workerd via miniflare)', () => {
  it('serves the origin response unchanged and sends one batch after N requests with cf fields', async () => {
    const mf = await start(await bundle('{ batchSize: 3, flushAfterMs: 60_000 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    const cf = {
      country: 'DE',
      asn: 3320,
      asOrganization: 'Deutsche Telekom',
      botManagement: { verifiedBot: true, score: 1 },
      tlsVersion: 'TLSv1.3',
    };
    const r1 = await mf.dispatchFetch('https://shop.example/a?x=1', {
      cf,
      headers: { 'user-agent': 'TestUA/1.0', 'cf-connecting-ip': '203.0.113.9' },
    });
    expect(r1.status).toBe(200);
    expect(r1.headers.get('x-origin')).toBe('yes');
    expect(r1.headers.get('cf-cache-status')).toBe('HIT');
    expect(await r1.text()).toBe('origin /a');
    const r2 = await mf.dispatchFetch('https://shop.example/missing', { method: 'POST', body: 'x' });
    expect(r2.status).toBe(404);
    await r2.text();
    await new Promise((r) => setTimeout(r, 200));
    expect(batches()).toHaveLength(0);
    const r3 = await mf.dispatchFetch('https://shop.example/c');
    await r3.text();
    const batch = await waitFor(() => batches()[0]);
    await new Promise((r) => setTimeout(r, 200));
    expect(batches()).toHaveLength(1);
    expect(batch.method).toBe('POST');
    expect(batch.headers['x-svc-proxy']).toBe(SECRET);
    expect(batch.headers['content-type']).toContain('application/json');
    const body = JSON.parse(batch.body);
    expect(RequestBatch.safeParse(body).success).toBe(true);
    expect(body.k).toBe(KEY);
    expect(body.records).toHaveLength(3);
    const [a, b, c] = body.records;
    expect(a).toMatchObject({
      method: 'GET',
      path: '/a',
      status: 200,
      cache: 'HIT',
      ip: '203.0.113.9',
      ua: 'TestUA/1.0',
      country: 'DE',
      asn: 3320,
      asOrg: 'Deutsche Telekom',
      verifiedBot: true,
      botScore: 1,
      tls: 'TLSv1.3',
    });
    expect(typeof a.at).toBe('number');
    expect(a.ms).toBeGreaterThanOrEqual(0);
    expect(b).toMatchObject({ method: 'POST', path: '/missing', status: 404, cache: 'HIT' });
    expect(c).toMatchObject({ method: 'GET', path: '/c', status: 200 });
  });

  it('flushes what is older than T on a later request', async () => {
    const mf = await start(await bundle('{ batchSize: 100, flushAfterMs: 300 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    await (await mf.dispatchFetch('https://shop.example/one')).text();
    await new Promise((r) => setTimeout(r, 400));
    expect(batches()).toHaveLength(0);
    await (await mf.dispatchFetch('https://shop.example/two')).text();
    const batch = await waitFor(() => batches()[0]);
    const body = JSON.parse(batch.body);
    expect(body.records.map((r: { path: string }) => r.path)).toEqual(['/one', '/two']);
  });

  it('retries a failed send once, then drops it', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    failNext = 1;
    await (await mf.dispatchFetch('https://shop.example/r1')).text();
    await waitFor(() => (batches().length >= 2 ? true : undefined));
    expect(batches().map((b) => JSON.parse(b.body).records[0].path)).toEqual(['/r1', '/r1']);
    captured.length = 0;
    failNext = 5;
    const res = await mf.dispatchFetch('https://shop.example/r2');
    expect(await res.text()).toBe('origin /r2');
    await waitFor(() => (batches().length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(batches()).toHaveLength(2);
  });

  it('keeps serving when the collect endpoint is down', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: 'http://127.0.0.1:9/collect',
    });
    for (let i = 0; i < 3; i++) {
      const res = await mf.dispatchFetch(`https://shop.example/p${i}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`origin /p${i}`);
    }
  });

  it('sends nothing without a secret', async () => {
    const mf = await start(await bundle('{ batchSize: 1, flushAfterMs: 0 }'), {
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    for (let i = 0; i < 3; i++) {
      const res = await mf.dispatchFetch(`https://shop.example/q${i}`);
      expect(await res.text()).toBe(`origin /q${i}`);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(captured).toHaveLength(0);
  });

  it('forwards /_us/* to the service origin with the customer host in x-forwarded-host', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    const res = await mf.dispatchFetch('https://shop.example/_us/internal?token=x', {
      headers: { cookie: 'a=1', 'cf-connecting-ip': '198.51.100.7', 'x-svc-client-ip': '6.6.6.6' },
      cf: { country: 'FR' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('service /_us/internal?token=x');
    expect(res.headers.get('set-cookie')).toContain('us_pass=abc');
    const fwd = captured.find((c) => c.url.startsWith('/_us/'))!;
    expect(fwd.url).toBe('/_us/internal?token=x');
    expect(fwd.headers['x-forwarded-host']).toBe('shop.example');
    expect(fwd.headers.cookie).toBe('a=1');
    expect(fwd.headers['x-svc-proxy']).toBe(SECRET);
    expect(fwd.headers['x-svc-client-ip']).toBe('198.51.100.7');
    expect(fwd.headers['x-svc-client-country']).toBe('FR');
    // not recorded as a site request
    await new Promise((r) => setTimeout(r, 200));
    expect(batches()).toHaveLength(0);
  });
});

describe('proxyHeaders', () => {
  it('builds the proxy-mode headers', () => {
    expect(
      proxyHeaders({ secret: SECRET, clientIp: '203.0.113.9', country: 'de', asn: 3320, asOrg: 'Deutsche Telekom' }),
    ).toEqual({
      'x-svc-proxy': SECRET,
      'x-svc-client-ip': '203.0.113.9',
      'x-svc-client-country': 'DE',
      'x-svc-client-asn': '3320',
      'x-svc-client-as-org': 'Deutsche Telekom',
    });
  });

  it('leaves out unknown or malformed values', () => {
    expect(proxyHeaders({ secret: SECRET, clientIp: '198.51.100.1', country: 'XYZ', asn: 'abc', asOrg: '' })).toEqual({
      'x-svc-proxy': SECRET,
      'x-svc-client-ip': '198.51.100.1',
    });
    expect(proxyHeaders({ secret: SECRET, clientIp: null })).toEqual({ 'x-svc-proxy': SECRET });
  });
});
