import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';

describe('health and readiness', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('GET /healthz answers while the process is up', async () => {
    const res = await t.request.get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz reports the database and the hot-state store', async () => {
    const res = await t.request.get('/readyz').expect(200);
    expect(res.body).toMatchObject({ status: 'ready', database: 'ok' });
    expect(res.body.hotState).toMatch(/^ok \((memory|redis)\)$/);
  });

  // PostgreSQL and Redis are shared: a load balancer that drops each node whose check fails drops every node at once,
  // and with them the degraded mode that keeps collect answering 202. `?strict` is for a deploy gate.
  it('with the hot store down the node stays ready (degraded) to a load balancer; ?strict answers 503', async () => {
    const ping = vi.spyOn(t.deps.hot, 'ping').mockRejectedValue(new Error('hot store down'));
    try {
      await expect.poll(async () => (await t.request.get('/readyz')).body.status, { timeout: 10_000 }).toBe('degraded');
      const lenient = await t.request.get('/readyz').expect(200);
      expect(lenient.body).toMatchObject({ status: 'degraded', database: 'ok', hotState: expect.stringMatching(/^unreachable/) });
      expect((await t.request.get('/readyz?strict=1')).status).toBe(503);
    } finally {
      ping.mockRestore();
    }
    await expect.poll(async () => (await t.request.get('/readyz?strict=1')).status, { timeout: 10_000 }).toBe(200);
  });

  // The attack: /readyz is on the public port, and each ask held a main-pool connection and pinged the hot store.
  it('asks the database and the hot store at most once a second, however many ask /readyz', async () => {
    const ping = vi.spyOn(t.deps.hot, 'ping');
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => t.request.get('/readyz')));
      expect(answers.every((a) => a.status === 200 && a.body.status === 'ready')).toBe(true);
      expect(ping.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      ping.mockRestore();
    }
  });

  it('HEAD on a REST route that takes GET answers its headers, without a body', async () => {
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: [] });
    const head = await t.request.head('/v1/me').set('Authorization', `Bearer ${token}`).expect(200);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    expect(head.text ?? '').toBe('');
    // A route that takes POST only still refuses HEAD.
    expect((await t.request.head('/v1/auth/logout')).status).toBe(404);
  });

  it('an unknown /v1 path is a problem+json 404', async () => {
    const res = await t.request.get('/v1/nope').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, title: expect.stringContaining('No such route') });
  });

  it('a known path asked with a method it does not take is a 404 that says which it takes (Allow)', async () => {
    const res = await t.request.put('/v1/sites').send({}).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.title).toMatch(/does not accept PUT/);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect((await t.request.get('/v1/nope')).headers.allow).toBeUndefined();
  });
});
