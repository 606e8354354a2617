// The REST face's budget per API token: counted first and atomically, before the body is read; past it 429 with
// Retry-After, while the same workspace's other token, a signed-in person and other tenants go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, ownerWithToken, signIn, startTestServer, type TestServer } from '../../support/server.ts';

const LIMIT = 5;

describe('REST: requests per API token', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { REST_CALLS_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => t.close());

  it(`answers ${LIMIT} a minute per token, then 429 with Retry-After; the workspace's other token, a session and other tenants go on`, async () => {
    const owner = await ownerWithToken(t.deps, ['sites:read']);
    const answers = await Promise.all(
      Array.from({ length: LIMIT + 3 }, () => t.request.get('/v1/sites').set('Authorization', owner.auth)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expectProblem(r, 429);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Counted before the body is read: a write past the budget is 429 too, not a 400 about its body.
    expectProblem(
      await t.request.post('/v1/sites').set('Authorization', owner.auth).set('Content-Type', 'application/json').send('{'),
      429,
    );
    const other = await createToken(t.deps, { userId: owner.user.id, workspaceId: owner.workspace.id, scopes: ['sites:read'] });
    await t.request.get('/v1/sites').set('Authorization', `Bearer ${other.token}`).expect(200);
    const cookie = await signIn(t, owner.email);
    for (let i = 0; i < LIMIT + 1; i++) await t.request.get('/v1/sites').set('Cookie', cookie).expect(200);
    const stranger = await ownerWithToken(t.deps, ['sites:read']);
    await t.request.get('/v1/sites').set('Authorization', stranger.auth).expect(200);
  });

  it('a credential that is no token is left to the route: 401 where one is needed, the same answer as without it elsewhere', async () => {
    expectProblem(await t.request.get('/v1/sites').set('Authorization', 'Bearer ust_not-a-token'), 401);
    const signup = { email: 'x@example.test', password: 'short' };
    const without = await t.request.post('/v1/auth/signup').send(signup);
    const withBad = await t.request.post('/v1/auth/signup').set('Authorization', 'Bearer ust_not-a-token').send(signup);
    expect([withBad.status, withBad.body.field]).toEqual([without.status, without.body.field]);
  });
});
