import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A GET as sent, its body as it came over the wire (not decompressed). */
function rawGet(url: string, acceptEncoding: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** GET /v1/docs: the API reference page and its self-hosted files, as a browser fetches them. */
describe('the API reference page', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const scriptsOf = (html: string) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];

  it('is a page with no inline script under a CSP without eval, reading /v1/openapi.json', async () => {
    const res = await t.request.get('/v1/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain('data-url="/v1/openapi.json"');
    const scripts = scriptsOf(res.text);
    expect(scripts.length).toBeGreaterThan(1);
    for (const [, attributes, body] of scripts) {
      // Each script is a file of this service, or the empty element the reference reads its settings from.
      expect(body?.trim()).toBe('');
      expect(attributes).toMatch(/src="\/v1\/docs\/assets\/|id="api-reference"/);
    }
  });

  it('serves its scripts from this service, cached for a year, gzipped when asked', async () => {
    const page = await t.request.get('/v1/docs').expect(200);
    const srcs = scriptsOf(page.text).flatMap(([, attributes]) => /src="([^"]+)"/.exec(attributes ?? '')?.[1] ?? []);
    expect(srcs).toEqual([
      expect.stringMatching(/^\/v1\/docs\/assets\/setup-[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/v1\/docs\/assets\/scalar-\d+\.\d+\.\d+\.js$/),
    ]);
    const bundle = srcs[1] as string;
    const plain = await rawGet(`${t.url}${bundle}`, 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^text\/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.body.toString('utf8', 0, 200)).not.toMatch(/^\s*</);
    const zipped = await rawGet(`${t.url}${bundle}`, 'gzip, deflate, br');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('answers other files and methods with 404 problems', async () => {
    for (const [method, p] of [
      ['get', '/v1/docs/assets/scalar-0.0.0.js'],
      ['get', '/v1/docs/openapi.json'],
      ['post', '/v1/docs'],
    ] as const) {
      const res = await t.request[method](p).expect(404);
      expect(res.headers['content-type'], `${method} ${p}`).toMatch(/^application\/problem\+json/);
    }
  });
});
