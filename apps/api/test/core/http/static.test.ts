import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spaStatic } from '../../../src/core/http/static.ts';

/** The built dashboard in a folder of its own, with a sibling folder whose name starts like it. */
describe('the dashboard files', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'spa-'));
  const dist = path.join(base, 'dist');
  let server: Server;
  let request: ReturnType<typeof supertest>;

  beforeAll(async () => {
    mkdirSync(path.join(dist, 'assets'), { recursive: true });
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title>');
    writeFileSync(path.join(dist, 'assets', 'app-1a2b.js'), 'console.log(1)');
    mkdirSync(path.join(base, 'dist-secret'));
    writeFileSync(path.join(base, 'dist-secret', 'key.txt'), 'SECRET-CONTENT');
    writeFileSync(path.join(base, 'outside.txt'), 'OUTSIDE-CONTENT');
    const app = new Koa();
    app.use(
      spaStatic(dist, {
        // As app.ts does with a secure request or an https APP_URL; here the test says which.
        https: (ctx) => ctx.get('x-test-https') === '1',
        frameAncestors: async (ctx) => (ctx.path === '/share/embeddable' ? ['shop.example', 'www.shop.example'] : 'none'),
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    request = supertest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(base, { recursive: true, force: true });
  });

  it('serves assets, and index.html for the dashboard’s own routes', async () => {
    const asset = await request.get('/assets/app-1a2b.js').expect(200);
    expect(asset.text).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await request.get('/sites/abc/protection').expect(200)).text).toContain('<title>dashboard</title>');
  });

  it('never leaves its folder, and never answers a malformed escape with a 500', async () => {
    for (const p of ['/..%2foutside.txt', '/..%2fdist-secret%2fkey.txt', '/%2e%2e/outside.txt', '/..%5coutside.txt']) {
      const res = await request.get(p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toContain('application/problem+json');
      expect(res.text, p).not.toMatch(/OUTSIDE-CONTENT|SECRET-CONTENT/);
    }
    const bad = await request.get('/%E0%A4%A').expect(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
  });

  it('answers /.well-known/* with 404, not the dashboard’s page', async () => {
    for (const p of ['/.well-known/apple-app-site-association', '/.well-known/acme-challenge/x', '/.env']) {
      const res = await request.get(p);
      expect(res.status, p).toBe(404);
      expect(res.text, p).not.toContain('<title>dashboard</title>');
    }
  });

  it('serves pages and assets under a CSP with no inline script, no eval and no framing', async () => {
    for (const p of ['/', '/sites/abc', '/assets/app-1a2b.js']) {
      const res = await request.get(p).expect(200);
      const csp = res.headers['content-security-policy'] as string;
      expect(csp, p).toContain("script-src 'self'");
      expect(csp, p).toContain("connect-src 'self'");
      expect(csp, p).toContain("img-src 'self' data:");
      expect(csp, p).toContain("frame-ancestors 'none'");
      expect(csp, p).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['x-frame-options'], p).toBe('DENY');
      expect(res.headers['referrer-policy'], p).toBe('strict-origin-when-cross-origin');
      expect(res.headers['x-content-type-options'], p).toBe('nosniff');
      expect(res.headers['strict-transport-security'], p).toBeUndefined();
    }
  });

  it('adds HSTS over https', async () => {
    const res = await request.get('/').set('x-test-https', '1').expect(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('lets the hosts the page allows frame it, without X-Frame-Options', async () => {
    const res = await request.get('/share/embeddable').expect(200);
    expect(res.headers['content-security-policy']).toContain('frame-ancestors shop.example www.shop.example');
    expect(res.headers['x-frame-options']).toBeUndefined();
  });
});
