import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_DIST } from '../../src/core/built-files.ts';
import type { ScriptManifest } from '../../src/core/script-builds.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';

const built = readFileSync(path.join(SCRIPT_DIST, 'script.js'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(SCRIPT_DIST, 'manifest.json'), 'utf8')) as ScriptManifest & {
  versioned: string;
};
const { versioned } = manifest;
const buildText = (name: string) => readFileSync(path.join(SCRIPT_DIST, 'builds', `${name}.js`), 'utf8');

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
    t = await startTestServer({ env: { COLLECT_URL: 'https://in.collect.example/collect', TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  /** A new owner's token and site, made through the API (so its settings are a new site's). */
  async function newSite() {
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
    const pk = (await t.request.get(`/v1/sites/${created.body.site.id}/snippet`).set('Authorization', auth).expect(200)).body
      .siteKey;
    return { auth, siteId: created.body.site.id as string, pk: pk as string };
  }

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

  it("is what the snippet points at: the site's own build, the core for a new site, with data-api when COLLECT_URL is elsewhere", async () => {
    const { auth, siteId, pk } = await newSite();
    const snip = await t.request.get(`/v1/sites/${siteId}/snippet`).set('Authorization', auth).expect(200);
    expect(snip.body.html).toContain(' data-api="https://in.collect.example/collect"');
    expect(snip.body.collectUrl).toBe('https://in.collect.example/collect');
    const src = new URL(/src="([^"]+)"/.exec(snip.body.html)?.[1] as string);
    expect(src.pathname).toBe(`/script/${pk}.js`);
    expect(snip.body.script).toEqual({
      features: [],
      gzipBytes: manifest.builds.core?.gzip,
      coreGzipBytes: manifest.builds.core?.gzip,
      featureGzipBytes: manifest.partGzip,
    });
    const res = await t.request.get(src.pathname).set('Accept-Encoding', 'identity').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600, stale-while-revalidate=86400');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.text).toBe(buildText('core'));
    const again = await t.request.get(src.pathname).set('If-None-Match', res.headers.etag as string);
    expect(again.status).toBe(304);
  });

  it('follows the parts the site turns on, and a site from before the choice gets every part', async () => {
    const { auth, siteId, pk } = await newSite();
    const patched = await t.request
      .patch(`/v1/sites/${siteId}/settings`)
      .set('Authorization', auth)
      .send({ scriptFeatures: ['clicks', 'events', 'clicks'] })
      .expect(200);
    expect(patched.body.site.settings.scriptFeatures).toEqual(['events', 'clicks']);
    await expect
      .poll(async () => (await t.request.get(`/script/${pk}.js`).set('Accept-Encoding', 'identity')).text)
      .toBe(buildText('events-clicks'));
    const snip = await t.request.get(`/v1/sites/${siteId}/snippet`).set('Authorization', auth).expect(200);
    expect(snip.body.script.gzipBytes).toBe(manifest.builds['events-clicks']?.gzip);

    // Settings written before sites chose their parts have no scriptFeatures: such a site keeps every part.
    await t.deps.orm.em.fork().execute(`update sites set settings = settings - 'scriptFeatures' where id = ?`, [siteId]);
    await t.request.patch(`/v1/sites/${siteId}/settings`).set('Authorization', auth).send({}).expect(200); // bumps the sites generation
    await expect.poll(async () => (await t.request.get(`/script/${pk}.js`).set('Accept-Encoding', 'identity')).text).toBe(built);
  });

  it('refuses parts it does not know, naming the field', async () => {
    const { auth, siteId } = await newSite();
    const res = await t.request
      .patch(`/v1/sites/${siteId}/settings`)
      .set('Authorization', auth)
      .send({ scriptFeatures: ['events', 'heatmaps'] })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.field).toBe('scriptFeatures[1]');
    expect(res.body.title).toMatch(/events, clicks, navigation/);
  });

  it('serves every build at its versioned URL for a year', async () => {
    for (const b of Object.values(manifest.builds)) {
      const res = await t.request.get(`/${b.versioned}`).set('Accept-Encoding', 'identity').expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.text).toBe(buildText(b.name));
    }
  });

  it('answers 404 for a key no site has, and 429 once an address tried too many unknown keys', async () => {
    const { pk } = await newSite();
    const STRANGER = '203.0.113.9';
    const unknown = await t.request
      .get(`/script/pk_${'z'.repeat(26)}.js`)
      .set('X-Forwarded-For', STRANGER)
      .expect(404);
    expect(unknown.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(unknown.body.title).toMatch(/No site has this public key/);
    expect((await t.request.get('/script/not-a-key.js')).status).toBe(404);
    // A stranger walking through made-up keys costs at most one lookup each, up to the address's budget.
    let refused: request.Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await t.request.get(`/script/pk_${String(i).padStart(26, '0')}.js`).set('X-Forwarded-For', STRANGER);
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(404);
    }
    expect(refused?.headers['retry-after']).toBe('60');
    expect(refused?.body.title).toMatch(/Too many unknown site keys/);
    expect((await t.request.get(`/script/pk_${'y'.repeat(26)}.js`).set('X-Forwarded-For', STRANGER)).status).toBe(429);
    // The site's visitors elsewhere are still served.
    await t.request.get(`/script/${pk}.js`).set('X-Forwarded-For', '198.51.100.7').expect(200);
  });
});
