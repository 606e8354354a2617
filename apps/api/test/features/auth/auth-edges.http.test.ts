import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, sessionSetCookie } from '../../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, signIn, startTestServer, type TestServer } from '../../support/server.ts';

/** Edges of the credential and protocol rules: dead cookies, odd headers, the SPA (tRPC) face. */
describe('Auth: edges', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('logout with a dead or unknown cookie still answers 204 and clears the cookie', async () => {
    const u = await createUser(t.deps);
    const cookie = await signIn(t, u.email);
    await t.request.post('/v1/auth/logout').set('Cookie', cookie).expect(204);
    const again = await t.request.post('/v1/auth/logout').set('Cookie', cookie).expect(204);
    expect(sessionSetCookie(again)).toMatch(/^us_session=;.*Max-Age=0/);
    await t.request.post('/v1/auth/logout').set('Cookie', 'us_session=never-issued').expect(204);
  });

  it('logout ends the session its cookie names whatever else the request carries', async () => {
    const u = await createUser(t.deps);
    // A workspace the person left since (the dashboard sends the one it remembers), then an API token beside the cookie.
    const left = await signIn(t, u.email);
    await t.request
      .post('/v1/auth/logout')
      .set('Cookie', left)
      .set('X-Workspace', '6f1c1a52-3d7e-4c55-9a1e-2b8f0f9e1c11')
      .expect(204);
    expectProblem(await t.request.get('/v1/me').set('Cookie', left), 401);
    const withBearer = await signIn(t, u.email);
    await t.request.post('/v1/auth/logout').set('Cookie', withBearer).set('Authorization', 'Bearer not-a-token').expect(204);
    expectProblem(await t.request.get('/v1/me').set('Cookie', withBearer), 401);
    // Another site cannot sign the person out.
    const kept = await signIn(t, u.email);
    expectProblem(await t.request.post('/v1/auth/logout').set('Cookie', kept).set('Origin', 'https://evil.example'), 403);
    await t.request.get('/v1/me').set('Cookie', kept).expect(200);
  });

  it('a cookie with a malformed escape is an unknown credential (401 problem), not a server error', async () => {
    const res = await t.request.get('/v1/me').set('Cookie', 'us_session=%E0%A4%A');
    expectProblem(res, 401);
  });

  it('an empty Idempotency-Key header is refused (400, field Idempotency-Key), not ignored', async () => {
    const u = await createUser(t.deps);
    const cookie = await signIn(t, u.email);
    const res = await t.request
      .post('/v1/auth/2fa/enroll')
      .set('Cookie', cookie)
      .set('Idempotency-Key', '')
      .send({ password: GOOD_PASSWORD });
    expectProblem(res, 400, 'Idempotency-Key');
  });

  it('compares the scheme of Origin too: http://host is not https://host', async () => {
    const u = await createUser(t.deps);
    const cookie = await signIn(t, u.email);
    const host = new URL(t.url).host;
    const foreign = await t.request
      .post('/v1/auth/2fa/enroll')
      .set('Cookie', cookie)
      .set('Origin', `https://${host}`)
      .send({ password: GOOD_PASSWORD });
    expectProblem(foreign, 403);
    await t.request
      .post('/v1/auth/2fa/enroll')
      .set('Cookie', cookie)
      .set('Origin', t.url)
      .send({ password: GOOD_PASSWORD })
      .expect(200);
  });

  it('a wrong password at verify names the field, so the form can show it there', async () => {
    const email = `verify-field-${Date.now()}@example.test`;
    await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
    const mail = await t.smtp.waitFor(email, /Confirm/);
    const token = /\/verify\?token=([A-Za-z0-9_%-]+)/.exec(mail.text)?.[1] as string;
    const res = await t.request.post('/v1/auth/verify').send({ token, password: 'not-the-password' });
    expectProblem(res, 401);
    expect(res.body.field).toBe('password');
  });

  describe('the SPA face (tRPC at /trpc)', () => {
    it('answers a refusal with its real HTTP status, tRPC code and the problem', async () => {
      const res = await t.request.get('/trpc/me.get').expect(401);
      expect(res.body.error.data.problem).toEqual({
        type: '/problems/unauthenticated',
        code: 'unauthenticated',
        title: 'Sign in to continue',
        status: 401,
      });
      expect(res.body.error.data.code).toBe('UNAUTHORIZED');
    });

    it('answers a field error with 400 and the field', async () => {
      const res = await t.request.post('/trpc/auth.signup').send({ email: 'x@example.test', password: 'short' }).expect(400);
      expect(res.body.error.data.problem).toMatchObject({ status: 400, field: 'password' });
    });

    it('signs in and reads /me with the cookie it set', async () => {
      const u = await createUser(t.deps);
      const login = await t.request.post('/trpc/auth.login').send({ email: u.email, password: GOOD_PASSWORD }).expect(200);
      const cookie = (sessionSetCookie(login) as string).split(';')[0] as string;
      const me = await t.request.get('/trpc/me.get').set('Cookie', cookie).expect(200);
      expect(me.body.result.data.user.email).toBe(u.email);
    });
  });
});

describe('idempotency fingerprint', () => {
  it('is the same for the same fields in another order, different for other values', async () => {
    const { canonicalJson } = await import('../../../src/faces/invoke.ts');
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [2, { x: 2, y: 1 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });
});
