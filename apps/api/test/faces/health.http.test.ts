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
});
