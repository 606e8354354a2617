import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, pageReport } from '../support/collect.ts';
import { captureLogs, type LogLine } from '../support/logs.ts';
import { modernCall } from '../support/mcp-http.ts';
import { type Origin, proxySite, startOrigin, viaProxy } from '../support/proxy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sends raw request bytes and answers the status line and headers the server wrote back. */
function rawRequest(url: string, head: string): Promise<{ status: number; headers: Record<string, string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let got = '';
    socket.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [status, ...lines] = got.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      socket.destroy();
      resolve({ status: Number(status?.split(' ')[1]), headers });
    });
    socket.on('error', reject);
  });
}

/**
 * Every answer carries the request's id (`X-Request-Id`: the client's when sane, else made), every log line
 * written while serving it carries the same id, and one access line per request names its route template.
 */
describe('request ids and access lines', () => {
  let t: TestServer;
  let site: CollectSite;
  const logs = captureLogs();
  const linesOf = (reqId: string) => logs.lines().filter((l) => l.reqId === reqId);
  const accessLine = (reqId: string): LogLine | undefined => linesOf(reqId).find((l) => typeof l.route === 'string');

  beforeAll(async () => {
    t = await startTestServer({ env: { LOG_FORMAT: 'json', LOG_LEVEL: 'debug', TRUST_PROXY: 'true' }, logs: logs.destination });
    site = await collectSite(t, 'request-ids.example');
  });
  afterAll(() => t?.close());

  it('echoes a sane X-Request-Id on a REST answer and logs one access line with the route template', async () => {
    const id = 'trace-42.a:b_C';
    const res = await t.request
      .get(`/v1/sites/${site.siteId}`)
      .set('Authorization', site.auth)
      .set('X-Request-Id', id)
      .expect(200);
    expect(res.headers['x-request-id']).toBe(id);
    await expect.poll(() => accessLine(id)).toBeDefined();
    expect(accessLine(id)).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/v1/sites/{id}',
      status: 200,
      face: 'rest',
      ms: expect.any(Number),
    });
    // The path as sent (with the site's id) is in none of the request's lines.
    expect(JSON.stringify(linesOf(id))).not.toContain(site.siteId);
  });

  it('makes a new id when none is sent, or when the one sent is too long or holds other characters', async () => {
    const none = await t.request.get('/healthz').expect(200);
    expect(none.headers['x-request-id']).toMatch(UUID);
    for (const hostile of ['x'.repeat(65), 'id with spaces', '<script>alert(1)</script>', 'a\tb', 'é-accent']) {
      const res = await t.request.get('/healthz').set('X-Request-Id', hostile).expect(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(logs.text()).not.toContain(hostile);
    }
    // A header folded onto a second line (obs-fold) can smuggle a line break into the value: refused as
    // a malformed request, or replaced; never echoed.
    const folded = await rawRequest(
      t.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\n def\r\nConnection: close\r\n\r\n',
    );
    if (folded.status === 200) expect(folded.headers['x-request-id']).toMatch(UUID);
    else expect(folded.status).toBe(400);
  });

  it('puts the id on every log line written while serving the request, an error’s included', async () => {
    const id = 'login-fails-1';
    const broken = new Error('the hot store broke in the test');
    const incr = t.deps.hot.incr.bind(t.deps.hot);
    t.deps.hot.incr = () => Promise.reject(broken);
    try {
      const res = await t.request
        .post('/v1/auth/login')
        .set('X-Request-Id', id)
        .send({ email: site.ownerEmail, password: 'whatever-it-is-1' })
        .expect(500);
      expect(res.headers['x-request-id']).toBe(id);
    } finally {
      t.deps.hot.incr = incr;
    }
    await expect.poll(() => accessLine(id)?.status).toBe(500);
    const error = linesOf(id).find((l) => l.level === 'error');
    expect(error?.msg).toMatch(/POST \/v1\/auth\/login failed/);
    expect((error?.err as { message?: string } | undefined)?.message).toBe(broken.message);
    // A 5xx access line is written at info whatever the face.
    expect(accessLine(id)?.level).toBe('info');
  });

  it('carries the id on the collect lane, tRPC, MCP and downloads answers', async () => {
    const collect = await t.request
      .post('/collect')
      .set('Content-Type', 'text/plain')
      .set('X-Request-Id', 'collect-1')
      .send(JSON.stringify(pageReport(site)))
      .expect(202);
    expect(collect.headers['x-request-id']).toBe('collect-1');

    const trpc = await t.request.get('/trpc/sites.list').set('X-Request-Id', 'trpc-1').expect(401);
    expect(trpc.headers['x-request-id']).toBe('trpc-1');

    const token = site.auth.replace(/^Bearer /, '');
    const mcp = await modernCall(
      t.url,
      token,
      'tools/call',
      { name: 'list_sites', arguments: {} },
      { headers: { 'x-request-id': 'mcp-1' } },
    );
    expect(mcp.headers.get('x-request-id')).toBe('mcp-1');

    const link = 'not-a-link-this-service-signed-0123456789';
    const download = await t.request.get(`/v1/downloads/${link}`).set('X-Request-Id', 'download-1').expect(404);
    expect(download.headers['x-request-id']).toBe('download-1');

    await expect
      .poll(() => ['collect-1', 'trpc-1', 'mcp-1', 'download-1'].map((id) => accessLine(id)?.route))
      .toEqual(['/collect', '/trpc/{procedure}', '/mcp', '/v1/downloads/{token}']);
    // Page reports are many: their access lines are debug, not info.
    expect(accessLine('collect-1')).toMatchObject({ level: 'debug', face: 'collect', status: 202 });
    expect(accessLine('trpc-1')).toMatchObject({ face: 'trpc', operation: 'sites.list', status: 401 });
    expect(accessLine('mcp-1')).toMatchObject({ face: 'mcp', status: 200 });
    // A download link is a credential: never in the log.
    expect(logs.text()).not.toContain(link);
  });

  describe('proxy mode', () => {
    let origin: Origin;
    const HOST = 'shop.request-ids.example';
    const DOWN = 'down.request-ids.example';
    beforeAll(async () => {
      origin = await startOrigin();
      await proxySite(t, HOST, origin.url);
      await proxySite(t, DOWN, 'http://127.0.0.1:9');
    });
    afterAll(() => origin?.close());

    it('puts the id on its own answers (origin unreachable), never on the origin’s', async () => {
      const own = await viaProxy(t, DOWN, '/cart', { headers: { 'x-request-id': 'proxy-own-1' } });
      expect(own.status).toBe(502);
      expect(own.headers['x-request-id']).toBe('proxy-own-1');

      const forwarded = await viaProxy(t, HOST, '/products/7', { headers: { 'x-request-id': 'proxy-fwd-1' } });
      expect(forwarded.status).toBe(200);
      expect(forwarded.headers['x-request-id']).toBeUndefined();
      // The origin got the visitor's header as it was sent: whether to use it is the origin's business.
      expect(origin.got('/products/7')[0]?.headers['x-request-id']).toBe('proxy-fwd-1');

      await expect.poll(() => accessLine('proxy-fwd-1')).toMatchObject({ level: 'debug', face: 'proxy', route: '(proxied)' });
      expect(logs.text()).not.toContain('/products/7');
    });
  });
});
