import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_DIST } from '../../src/core/built-files.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';

const built = readFileSync(path.join(SCRIPT_DIST, 'script.js'), 'utf8');
const { versioned } = JSON.parse(readFileSync(path.join(SCRIPT_DIST, 'manifest.json'), 'utf8')) as { versioned: string };

/** The bytes as sent (no client-side decompression). */
function rawGet(url: string, acceptEncoding: string): Promise<{ encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('the page script served by the API', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { COLLECT_URL: 'https://in.collect.example/collect' } });
  });
  afterAll(() => t.close());

  it('is at the stable /script.js, cached for a day with an ETag, readable cross-origin', async () => {
    const res = await t.request.get('/script.js').set('Accept-Encoding', 'identity').expect(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=86400, stale-while-revalidate=604800');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.text).toBe(built);
    const again = await t.request.get('/script.js').set('If-None-Match', res.headers.etag as string);
    expect(again.status).toBe(304);
  });

  it('is compressed on request (brotli or gzip) to the built size', async () => {
    const manifest = JSON.parse(readFileSync(path.join(SCRIPT_DIST, 'manifest.json'), 'utf8')) as { brotli: number };
    const br = await rawGet(`${t.url}/script.js`, 'br');
    expect(br.encoding).toBe('br');
    expect(br.body.length).toBe(manifest.brotli);
    expect(brotliDecompressSync(br.body).toString('utf8')).toBe(built);
    const gz = await rawGet(`${t.url}/script.js`, 'gzip, deflate');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(built);
  });

  it('has a versioned URL cached for a year, and other script names are not served', async () => {
    expect(versioned).toMatch(/^script\.[0-9a-f]{8}\.js$/);
    const res = await t.request.get(`/${versioned}`).set('Accept-Encoding', 'identity').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.text).toBe(built);
    const other = await t.request.get('/script.00000000.js');
    expect(other.headers['content-type']).not.toMatch(/javascript/);
  });

  it('is what the snippet points at, with data-api when COLLECT_URL is elsewhere', async () => {
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write'],
    });
    const auth = `Bearer ${token}`;
    const created = await t.request
      .post('/v1/sites')
      .set('Authorization', auth)
      .send({ name: 'Script site', hostnames: ['script.example'] })
      .expect(201);
    const snip = await t.request.get(`/v1/sites/${created.body.site.id}/snippet`).set('Authorization', auth).expect(200);
    expect(snip.body.html).toContain(' data-api="https://in.collect.example/collect"');
    expect(snip.body.collectUrl).toBe('https://in.collect.example/collect');
    const src = new URL(/src="([^"]+)"/.exec(snip.body.html)?.[1] as string);
    expect(src.pathname).toBe('/script.js');
    const res = await t.request.get(src.pathname).set('Accept-Encoding', 'identity').expect(200);
    expect(res.text).toBe(built);
  });
});
