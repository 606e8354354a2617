import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSite } from '../support/collect.ts';
import { type Origin, proxySite, startOrigin, viaProxy } from '../support/proxy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * `/.well-known/*` names documents a client looks for at a fixed address (RFC 8615). This service
 * publishes none of them: the MCP revision it speaks (2026-07-28) defines discovery as the
 * `server/discover` method, its tokens are not OAuth (no protected-resource metadata), and ACME and
 * security.txt are the ingress's and the operator's. So every face answers each of them with a 404
 * problem, never the dashboard's page, whatever the method and whichever of the service's hosts is asked.
 */
const PATHS = [
  '/.well-known/mcp.json',
  '/.well-known/mcp/server-card.json',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/security.txt',
  '/.well-known/acme-challenge/token-1',
  '/.well-known/apple-app-site-association',
  '/.Well-Known/mcp.json',
  '/.well-known%2fmcp.json',
  '/v1/.well-known/openapi.json',
  '/mcp/.well-known/mcp.json',
  '/collect/.well-known/x',
  '/_us/.well-known/x',
  '/trpc/.well-known/x',
  '/share/.well-known/x',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

describe('/.well-known/* on every face', () => {
  let t: TestServer;
  let origin: Origin;
  let siteHost: string;
  const proxyHost = 'www.proxied-well-known.test';
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    origin = await startOrigin();
    siteHost = 'shop.well-known.test';
    await collectSite(t, siteHost);
    await proxySite(t, proxyHost, origin.url);
  });
  afterAll(async () => {
    await t?.close();
    await origin?.close();
  });

  it('answers 404 problem+json for every method on the service’s own host and on a site’s hostname', async () => {
    for (const host of [new URL(t.url).host, siteHost]) {
      for (const path of PATHS) {
        for (const method of METHODS) {
          const withBody = method !== 'GET' && method !== 'HEAD';
          const res = await viaProxy(t, host, path, {
            method,
            ...(withBody ? { headers: { 'content-type': 'application/json', 'content-length': '2' }, body: '{}' } : {}),
          });
          const where = `${method} ${host}${path}`;
          expect(res.status, `${where}: ${res.body}`).toBe(404);
          if (method !== 'HEAD') {
            expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
            expect(JSON.parse(res.body), where).toMatchObject({ status: 404, code: 'not-found' });
          }
          expect(res.body, where).not.toContain('<div id="root">');
        }
      }
    }
  });

  it('on a proxied hostname, the customer’s own /.well-known/ paths are the origin’s; the service’s /_us/ paths stay 404', async () => {
    const card = await viaProxy(t, proxyHost, '/.well-known/security.txt');
    expect(card.status).toBe(200);
    expect(card.headers['x-origin']).toBe('yes');
    expect(origin.got('/.well-known/security.txt')).toHaveLength(1);

    const ours = await viaProxy(t, proxyHost, '/_us/.well-known/mcp.json');
    expect(ours.status).toBe(404);
    expect(ours.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(origin.got('/_us/.well-known/mcp.json')).toHaveLength(0);
  });
});
