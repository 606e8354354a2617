import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

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

  it('an unknown /v1 path is a problem+json 404', async () => {
    const res = await t.request.get('/v1/nope').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, title: expect.stringContaining('No such route') });
  });
});
