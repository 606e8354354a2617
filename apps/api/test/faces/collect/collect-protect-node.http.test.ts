import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProtectMiddleware, protectMiddleware } from '../../../../../packages/edge/src/node.ts';
import { BROWSER_UA, type CollectSite, collectSite } from '../../support/collect.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const HOST = 'proxy-node-shop.example';
const CURL = 'curl/8.5.0';
const HTML = 'text/html,application/xhtml+xml';

/** One request to the shop as a visitor from `ip` sends it (node:http: the Host header is the visitor's to choose). */
function visit(base: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    // The path as written (a URL string would have its dot segments resolved before sending).
    const { hostname, port } = new URL(base);
    const req = request({ hostname, port, path, headers: { host: HOST, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Proxy mode through the customer's own Node server: a node:http shop using the ready-made middleware in front
 * of the real service. Every request is decided by the service and recorded like the edge SDK's records; the
 * records show in the decisions report and count in usage. Global Privacy Control: decided, never recorded.
 */
describe('protectMiddleware in a node:http shop, in front of the real service', () => {
  let t: TestServer;
  let site: CollectSite;
  let shop: Server;
  let shopUrl = '';
  let gate: ProtectMiddleware;

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, HOST, ['bot:read', 'bot:write', 'analytics:read', 'billing:read']);
    await t.deps.orm.em.fork().nativeUpdate(SiteHostname, { site: site.siteId, hostname: HOST }, { verifiedAt: new Date() });
    await t.request
      .put(`/v1/sites/${site.siteId}/bot`)
      .set('Authorization', site.auth)
      .send({ mode: 'challenge', bots: 'allow', rules: [{ action: 'deny', label: 'No admin', match: { path: '/admin' } }] })
      .expect(200);
    gate = protectMiddleware({
      secret: site.secret,
      key: site.publicKey,
      collectUrl: `${t.url}/collect`,
      // The answers are the point, not the speed: a loaded machine may take longer than the real 50 ms.
      budgetMs: 15_000,
      batchSize: 100,
      flushAfterMs: 200,
      // Behind a load balancer the visitor's address comes from it; here from a header the test sets.
      clientIp: (req) => String(req.headers['x-test-ip'] ?? ''),
    });
    shop = createServer((req, res) =>
      gate(req, res, () => {
        res.statusCode = req.url?.startsWith('/missing') ? 404 : 200;
        res.end(`origin ${req.url}`);
      }),
    );
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => shop?.close(r));
    await t?.close();
  });

  const report = async () =>
    (await t.request.get(`/v1/sites/${site.siteId}/bot/decisions`).query({ days: 1 }).set('Authorization', site.auth).expect(200))
      .body;

  it('decides and records every request; the records show in the decisions report with their decisions and count in usage', async () => {
    const browser = { 'user-agent': BROWSER_UA, accept: HTML, 'x-test-ip': '198.51.100.31' };
    const curl = { 'user-agent': CURL, accept: HTML, 'x-test-ip': '198.51.100.32' };

    const challenged = await visit(shopUrl, '/pricing?plan=pro', curl);
    expect(challenged.status).toBe(302);
    expect(challenged.headers.location).toMatch(new RegExp(`^${t.deps.urls.challenge}\\?t=`));
    const served = await visit(shopUrl, '/', browser);
    expect([served.status, served.body]).toEqual([200, 'origin /']);
    const missing = await visit(shopUrl, '/missing/page', browser);
    expect(missing.status).toBe(404);
    const refused = await visit(shopUrl, '/admin', browser);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Access refused');
    // A Host the visitor made up is no return target: the same 403 page as at the edge, never the origin.
    const madeUp = await visit(shopUrl, '/', { ...curl, host: 'made-up-host.example' });
    expect(madeUp.status).toBe(403);
    expect(madeUp.body).toContain('cannot send you back');
    // Global Privacy Control: decided like the others, never recorded.
    expect((await visit(shopUrl, '/gpc', { ...curl, 'sec-gpc': '1' })).status).toBe(302);
    expect((await visit(shopUrl, '/gpc', { ...browser, 'sec-gpc': '1' })).body).toBe('origin /gpc');

    // The middleware sends its records on a timer (200 ms); the service stores them within its flush interval.
    await expect.poll(async () => (await report()).totals.total).toBe(5);
    await gate.flush();
    await t.deps.ingest.flushNow();
    const body = await report();
    expect(body.totals).toEqual({ allow: 2, challenge: 2, deny: 1, total: 5 });
    const rows = body.rows.map((r: { action: string; reason: string; count: number }) => [r.action, r.reason, r.count]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['allow', 'browser: no sign of automation', 2],
        ['challenge', 'client software never runs page scripts: curl', 1],
        [
          'challenge',
          'client software never runs page scripts: curl (no check: not a verified hostname of the site, so a check could not return there)',
          1,
        ],
        ['deny', 'rule: No admin', 1],
      ]),
    );
    expect(rows).toHaveLength(4);
    // The made-up hostname is counted, never named.
    expect(body.otherHostnames).toBe(1);
    expect(body.setupProblems).toEqual([]);
    expect(JSON.stringify(body)).not.toContain('made-up-host');

    const stored = (await t.deps.orm.em
      .fork()
      .execute('select path, status, decision from requests where site_id = ? order by path, status', [site.siteId])) as {
      path: string;
      status: number;
      decision: string;
    }[];
    expect(stored.map((r) => [r.path, r.status, r.decision])).toEqual([
      ['/', 200, 'allow'],
      ['/', 403, 'challenge'],
      ['/admin', 403, 'deny'],
      ['/missing/page', 404, 'allow'],
      ['/pricing', 302, 'challenge'],
    ]);

    const billing = await t.request.get('/v1/billing').set('Authorization', site.auth).expect(200);
    expect(billing.body.usage.serverRequests.used).toBe(5);
  });

  it('forwards /_us/* to the service: the check’s way back answers there, undecided and unrecorded', async () => {
    const before = (await report()).totals.total;
    const res = await visit(shopUrl, '/_us/pass?g=not-a-grant', {
      'user-agent': BROWSER_UA,
      accept: HTML,
      'x-test-ip': '198.51.100.33',
    });
    // The service's own answer to a grant it cannot read.
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('text/html');
    await gate.flush();
    await t.deps.ingest.flushNow();
    expect((await report()).totals.total).toBe(before);
  });

  it('a /_us/ path that resolves elsewhere is decided as that path, never forwarded with the site’s secret', async () => {
    const browser = { 'user-agent': BROWSER_UA, accept: HTML, 'x-test-ip': '198.51.100.34' };
    // Resolved by fetch these were the service's own route that answers the site's protection config (its pass key).
    for (const path of ['/_us/../collect/protection', '/_us/%2e%2e/collect/protection', '/_us/%2E%2E/collect/protection']) {
      const res = await visit(shopUrl, path, browser);
      expect(res.body).not.toContain('passKey');
      expect(res.headers['content-type'] ?? '').not.toContain('application/json');
    }
    // And the origin's `/admin` under a /_us/ disguise meets the rule on /admin.
    for (const path of ['/_us/../admin', '/_us/%2e%2e/admin']) {
      const res = await visit(shopUrl, path, browser);
      expect(res.status).toBe(403);
      expect(res.body).not.toContain('origin');
    }
    // The service's own path still goes through.
    expect((await visit(shopUrl, '/_us/./pass?g=not-a-grant', browser)).status).toBe(400);
  });

  // The attack: fields past the decide endpoint's bounds made it answer 400, and protect() serves on any failure.
  it('a visitor’s long user agent, long pass cookie, long path or absolute-form target still meets the rules', async () => {
    const from = { 'x-test-ip': '198.51.100.35', accept: HTML };
    for (const [path, headers] of [
      ['/admin', { 'user-agent': `${BROWSER_UA} ${'x'.repeat(3_000)}` }],
      ['/admin', { 'user-agent': BROWSER_UA, cookie: `us_pass=${'p'.repeat(300)}` }],
      [`/${'a'.repeat(2_100)}/../admin`, { 'user-agent': BROWSER_UA }],
      [`/${'a'.repeat(2_100)}%2F..%2Fadmin`, { 'user-agent': BROWSER_UA }],
      ['/ADMIN', { 'user-agent': BROWSER_UA }],
    ] as const) {
      const res = await visit(shopUrl, path, { ...from, ...headers });
      expect(res.status, path.slice(-20)).toBe(403);
      expect(res.body).not.toContain('origin');
    }
  });
});
