import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_DIR, EDGE_DIST, ensureEdgeBuild } from '../../../../packages/edge/test/built.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const { version } = JSON.parse(readFileSync(path.join(EDGE_DIR, 'package.json'), 'utf8')) as { version: string };
const base = `/sdk/edge@${version}`;

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

/** The files a built module imports, relative to it. */
const importsOf = (code: string) => [...code.matchAll(/from\s*"\.\/([^"]+)"/g)].map((m) => m[1] as string);

describe('the edge SDK served by the API at its versioned URL', () => {
  let t: TestServer;
  beforeAll(async () => {
    ensureEdgeBuild();
    t = await startTestServer();
  }, 180_000);
  afterAll(() => t.close());

  it('serves the built entry, cached for a year as immutable, readable cross-origin, with its types named', async () => {
    const res = await t.request.get(`${base}/index.js`).set('Accept-Encoding', 'identity').expect(200);
    expect(res.text).toBe(readFileSync(path.join(EDGE_DIST, 'index.js'), 'utf8'));
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-typescript-types']).toBe('./index.d.ts');
    const again = await t.request.get(`${base}/index.js`).set('If-None-Match', res.headers.etag as string);
    expect(again.status).toBe(304);
  });

  it('serves every file the entries import, and the declarations they import', async () => {
    const seen = new Set<string>();
    const queue = ['index.js', 'node.js', 'protect.js', 'index.d.ts', 'node.d.ts', 'protect.d.ts'];
    while (queue.length > 0) {
      const file = queue.shift() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      const res = await t.request.get(`${base}/${file}`).set('Accept-Encoding', 'identity').expect(200);
      const types = file.endsWith('.d.ts');
      expect(res.headers['content-type'], file).toBe(
        types ? 'application/typescript; charset=utf-8' : 'text/javascript; charset=utf-8',
      );
      queue.push(...importsOf(res.text).map((f) => (types ? f.replace(/\.js$/, '.d.ts') : f)));
    }
    expect(seen.size).toBeGreaterThan(6);
    const node = await t.request.get(`${base}/node.d.ts`).set('Accept-Encoding', 'identity').expect(200);
    expect(node.text).toMatch(/export \{[^}]*\bprotectMiddleware\b/);
  });

  it('compresses on request (brotli or gzip)', async () => {
    const plain = readFileSync(path.join(EDGE_DIST, 'index.js'));
    const br = await rawGet(`${t.url}${base}/index.js`, 'br');
    expect(br.encoding).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.length / 2);
    const gz = await rawGet(`${t.url}${base}/index.js`, 'gzip, deflate');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain)).toBe(true);
  });

  it('answers 404 for another version, a file the build does not have, or a path out of dist', async () => {
    for (const p of [
      '/sdk/edge@0.9.0/index.js',
      '/sdk/edge@latest/index.js',
      `${base}/missing.js`,
      `${base}/`,
      `${base}/..%2Fpackage.json`,
      `${base}/../package.json`,
      '/sdk/other@1.0.0/index.js',
    ]) {
      const res = await t.request.get(p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toBe('application/problem+json');
    }
    const wrong = await t.request.get('/sdk/edge@0.9.0/index.js');
    expect(wrong.body.title).toContain(`${base}/index.js`);
  });
});

describe('the edge SDK URL before the build', () => {
  let t: TestServer;
  const dir = mkdtempSync(path.join(tmpdir(), 'us-edge-unbuilt-'));
  beforeAll(async () => {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@unseen-stats/edge', version }));
    mkdirSync(path.join(dir, 'dist'));
    t = await startTestServer({ edgeSdkDir: dir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says to build it (503), and other versions are still 404', async () => {
    const res = await t.request.get(`${base}/index.js`).expect(503);
    expect(res.body.title).toContain('npm run build');
    await t.request.get('/sdk/edge@0.9.0/index.js').expect(404);
  });
});
