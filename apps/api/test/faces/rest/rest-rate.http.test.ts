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

  // The attack: a file upload (PUT, up to 200 MB a time) was outside the REST budget: the same token sent it in a loop.
  it('counts a file upload as a call of the token, before a byte of its body is read', async () => {
    const owner = await ownerWithToken(t.deps, ['sites:read', 'sites:write']);
    const site = (await t.request.post('/v1/sites').set('Authorization', owner.auth).send({ name: 'Uploads' }).expect(201)).body
      .site.id as string;
    const made = await t.request.post(`/v1/sites/${site}/imports`).set('Authorization', owner.auth).send({ source: 'umami' });
    expect(made.status).toBe(201);
    const put = () =>
      t.request
        .put(`/v1/sites/${site}/imports/${made.body.id}/files/website_event.csv`)
        .set('Authorization', owner.auth)
        .set('Content-Type', 'text/csv')
        .send('not,a,real,file\n');
    const answers = [];
    for (let i = 0; i < LIMIT; i++) answers.push((await put()).status);
    expect(answers).toContain(429);
    expectProblem(await put(), 429);
  });

  it('a credential that is no token is left to the route: 401 where one is needed, the same answer as without it elsewhere', async () => {
    expectProblem(await t.request.get('/v1/sites').set('Authorization', 'Bearer ust_not-a-token'), 401);
    const signup = { email: 'x@example.test', password: 'short' };
    const without = await t.request.post('/v1/auth/signup').send(signup);
    const withBad = await t.request.post('/v1/auth/signup').set('Authorization', 'Bearer ust_not-a-token').send(signup);
    expect([withBad.status, withBad.body.field]).toEqual([without.status, without.body.field]);
  });

  // The attack: the same token on the dashboard's face, /trpc, ten calls a request, none counted.
  it('counts a token on the dashboard face too, each call of a batch one, in the same minute as REST', async () => {
    const owner = await ownerWithToken(t.deps, ['sites:read']);
    const batch = (n: number) =>
      t.request
        .get(
          `/trpc/${Array(n).fill('sites.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), {}]))))}`,
        )
        .set('Authorization', owner.auth);
    await batch(LIMIT - 1).expect(200);
    await t.request.get('/v1/sites').set('Authorization', owner.auth).expect(200);
    const refused = await batch(2);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectProblem(await t.request.get('/v1/sites').set('Authorization', owner.auth), 429);
    // A signed-in person's dashboard is not counted.
    const cookie = await signIn(t, owner.email);
    for (let i = 0; i < 2; i++) {
      await t.request
        .get(`/trpc/sites.list?input=${encodeURIComponent(JSON.stringify({}))}`)
        .set('Cookie', cookie)
        .expect(200);
    }
  });
});
