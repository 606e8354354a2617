import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PROBLEM_CODES, PROBLEM_TYPES } from '../../src/core/problem-types.ts';
import { expectProblemCode } from '../support/auth-helpers.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../support/server.ts';

/** GET /problems/<code>: what a problem's `type` points at, served by the service itself. */
describe('problem types', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('GET /problems/<code> answers the type without credentials, cacheable', async () => {
    const res = await t.request.get('/problems/plan-limit').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.body).toEqual({
      code: 'plan-limit',
      title: 'Plan limit reached',
      status: 402,
      description: expect.stringMatching(/Upgrade the plan/),
    });
  });

  it('serves every code of the table', async () => {
    for (const code of PROBLEM_CODES) {
      const res = await t.request.get(`/problems/${code}`).expect(200);
      const { status, title, description } = PROBLEM_TYPES[code];
      expect(res.body).toEqual({ code, title, status, description });
    }
  });

  it('an unknown code is a 404 problem, not the dashboard', async () => {
    // Strangers' paths too: names of Object's own members, encoded bytes, a 4 KB name (a table lookup, nothing stored).
    for (const path of [
      '/problems/no-such-code',
      '/problems/',
      '/problems/validation/more',
      '/problems/constructor',
      '/problems/__proto__',
      '/problems/toString',
      '/problems/validation%00',
      '/problems/%E2%80%AEvalidation',
      `/problems/${'x'.repeat(4096)}`,
    ]) {
      const res = await t.request.get(path);
      expect(expectProblemCode(res, 'not-found').title, path).toMatch(/^No such problem type/);
    }
    expectProblemCode(await t.request.post('/problems/validation').send({}), 'not-found');
  });

  it("a refusal's type, resolved against the request's URL, is its entry here", async () => {
    const refusal = expectProblemCode(await t.request.get('/v1/me'), 'unauthenticated');
    const entry = await fetch(new URL(refusal.type, `${t.url}/v1/me`));
    expect(entry.status).toBe(200);
    expect(await entry.json()).toMatchObject({ code: 'unauthenticated', status: 401 });
  });

  it('a failure of our own is 500 internal, saying to try again', async () => {
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:write'] });
    // A bug of ours stands in: the idempotency fingerprint throws a plain error.
    const mac = vi.spyOn(t.deps.ciphers.idempotency, 'mac').mockImplementation(() => {
      throw new Error('a bug of ours');
    });
    try {
      const res = await t.request
        .post('/v1/sites')
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', 'internal-1')
        .send({ name: 'Shop' });
      expect(expectProblemCode(res, 'internal').title).toMatch(/try again/);
      expect(res.text).not.toContain('a bug of ours');
    } finally {
      mac.mockRestore();
    }
  });
});
