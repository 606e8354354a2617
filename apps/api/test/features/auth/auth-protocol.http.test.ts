import { User } from '@us/db';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemCode } from '../../../src/core/problem-types.ts';
import { expectProblem, expectProblemCode, sessionSetCookie, totpCode } from '../../support/auth-helpers.ts';
import {
  createToken,
  createUser,
  GOOD_PASSWORD,
  signIn,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from '../../support/server.ts';

/** Idempotency, the problem+json shape, strict request bodies and cross-site protection, on the Auth routes. */
describe('Auth: protocol rules', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  async function signedInUser() {
    const u = await createUser(t.deps);
    return { ...u, cookie: await signIn(t, u.email) };
  }

  const enroll = (cookie: string, body: Record<string, unknown>, key?: string) => {
    const req = t.request.post('/v1/auth/2fa/enroll').set('Cookie', cookie);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };

  describe('Idempotency-Key', () => {
    it('replays the first answer to a repeat with the same key and body, marked Idempotent-Replayed: true', async () => {
      const { cookie } = await signedInUser();
      const key = `enrol-${Date.now()}`;
      const first = await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const again = await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);

      // The repeat did not enrol again: the first secret is the one that confirms.
      await t.request
        .post('/v1/auth/2fa/confirm')
        .set('Cookie', cookie)
        .send({ code: totpCode(first.body.secret) })
        .expect(200);
    });

    it('without a key, a repeat runs again', async () => {
      const { cookie } = await signedInUser();
      const a = await enroll(cookie, { password: GOOD_PASSWORD }).expect(200);
      const b = await enroll(cookie, { password: GOOD_PASSWORD }).expect(200);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.secret).not.toBe(a.body.secret);
    });

    it('answers 422 to the same key with a different body, or on a different route', async () => {
      const { cookie } = await signedInUser();
      const key = 'shared-key-422';
      await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      expectProblemCode(
        await enroll(cookie, { password: 'another-password-entirely' }, key),
        'idempotency-mismatch',
        'Idempotency-Key',
      );
      const change = await t.request
        .post('/v1/auth/password/change')
        .set('Cookie', cookie)
        .set('Idempotency-Key', key)
        .send({ currentPassword: GOOD_PASSWORD, newPassword: 'amber-lantern-orchard-58' });
      expectProblem(change, 422);
      // The refused change did not happen.
      await t.request
        .post('/v1/auth/login')
        .send({ email: (await userOf(cookie)).email, password: GOOD_PASSWORD })
        .expect(200);
    });

    it('keeps only successful answers: a refused request can be retried with the same key', async () => {
      const { cookie } = await signedInUser();
      const key = 'retry-after-400';
      expectProblem(await enroll(cookie, { password: 'not-the-password' }, key), 400, 'password');
      const retried = await enroll(cookie, { password: 'not-the-password' }, key);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expectProblem(retried, 400, 'password');
      const fixed = await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    });

    it('accepts keys of 1 to 255 characters and refuses longer ones (400, field Idempotency-Key)', async () => {
      const { cookie } = await signedInUser();
      await enroll(cookie, { password: GOOD_PASSWORD }, 'k'.repeat(255)).expect(200);
      await enroll(cookie, { password: GOOD_PASSWORD }, 'k').expect(200);
      const res = await enroll(cookie, { password: GOOD_PASSWORD }, 'k'.repeat(256));
      expectProblem(res, 400, 'Idempotency-Key');
    });

    it('keeps different callers apart: the same key from two people gives each their own answer', async () => {
      const a = await signedInUser();
      const b = await signedInUser();
      const key = 'everyone-uses-this-key';
      const ra = await enroll(a.cookie, { password: GOOD_PASSWORD }, key).expect(200);
      const rb = await enroll(b.cookie, { password: GOOD_PASSWORD }, key).expect(200);
      expect(rb.headers['idempotent-replayed']).toBeUndefined();
      expect(rb.body.secret).not.toBe(ra.body.secret);
      expect(rb.body.otpauthUri).toContain(encodeURIComponent(b.email));
    });

    it('replays to the same person from another of their sessions', async () => {
      const { email, cookie } = await signedInUser();
      const other = await signIn(t, email);
      const key = 'same-person-two-sessions';
      const first = await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      const again = await enroll(other, { password: GOOD_PASSWORD }, key).expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it('still checks the credential on a replay: an ended session gets 401, not the stored answer', async () => {
      const { cookie } = await signedInUser();
      const key = 'replay-after-logout';
      await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      await t.request.post('/v1/auth/logout').set('Cookie', cookie).expect(204);
      const res = await enroll(cookie, { password: GOOD_PASSWORD }, key);
      expectProblem(res, 401);
      expect(res.text).not.toContain('secret');
    });

    it('still refuses a cross-site replay (403), never handing out the stored answer', async () => {
      const { cookie } = await signedInUser();
      const key = 'replay-cross-site';
      await enroll(cookie, { password: GOOD_PASSWORD }, key).expect(200);
      const res = await t.request
        .post('/v1/auth/2fa/enroll')
        .set('Cookie', cookie)
        .set('Origin', 'https://evil.example')
        .set('Idempotency-Key', key)
        .send({ password: GOOD_PASSWORD });
      expectProblem(res, 403);
      expect(res.text).not.toContain('otpauth');
    });
  });

  async function userOf(cookie: string) {
    const me = await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    return me.body.user as { id: string; email: string };
  }

  describe('problem+json', () => {
    it('every kind of refusal on the Auth routes is a problem with type, code, status, title and (for 400) field', async () => {
      const { user, workspace, cookie } = await signedInUser();
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      const cases: [ProblemCode, () => Promise<Response>][] = [
        ['validation', () => t.request.post('/v1/auth/signup').send({ email: 'bad', password: GOOD_PASSWORD })],
        ['validation', () => t.request.post('/v1/auth/verify').send({ token: 'nope', password: '' })],
        ['unauthenticated', () => t.request.post('/v1/auth/login').send({ email: uniqueEmail(), password: 'whatever-password' })],
        ['unauthenticated', () => t.request.get('/v1/auth/sessions')],
        ['unauthenticated', () => t.request.post('/v1/auth/login/2fa').send({ challenge: 'nope', code: '000000' })],
        // A person-only route called with a token: not allowed whatever the token's scopes.
        ['forbidden', () => t.request.get('/v1/auth/sessions').set('Authorization', `Bearer ${token}`)],
        ['not-found', () => t.request.delete('/v1/auth/sessions/00000000-0000-4000-8000-000000000000').set('Cookie', cookie)],
        ['not-found', () => t.request.get('/v1/auth/nowhere')],
        [
          'conflict',
          () => t.request.post('/v1/auth/2fa/disable').set('Cookie', cookie).send({ password: GOOD_PASSWORD, code: '000000' }),
        ],
      ];
      for (const [code, send] of cases) expectProblemCode(await send(), code);
    });

    it.each([
      ['/v1/auth/signup', { email: 'a@example.test', password: GOOD_PASSWORD, role: 'owner' }, 'role'],
      ['/v1/auth/login', { email: 'a@example.test', password: GOOD_PASSWORD, remember: true }, 'remember'],
      ['/v1/auth/verify', { token: 'x', password: 'y', extra: 1 }, 'extra'],
      ['/v1/auth/verify/resend', { email: 'a@example.test', lang: 'en' }, 'lang'],
      ['/v1/auth/password/reset-request', { email: 'a@example.test', redirect: 'https://evil.example' }, 'redirect'],
      ['/v1/auth/password/reset', { token: 'x', password: GOOD_PASSWORD, userId: 'u' }, 'userId'],
      ['/v1/auth/login/2fa', { challenge: 'x', code: '123456', trustDevice: true }, 'trustDevice'],
    ])('POST %s refuses an unknown field (400 naming it)', async (path, body, field) => {
      expectProblem(await t.request.post(path).send(body), 400, field);
    });

    it('person routes refuse unknown fields too, in the body and in the query', async () => {
      const { cookie } = await signedInUser();
      expectProblem(
        await t.request.post('/v1/auth/2fa/enroll').set('Cookie', cookie).send({ password: GOOD_PASSWORD, label: 'x' }),
        400,
        'label',
      );
      expectProblem(await t.request.post('/v1/auth/logout').set('Cookie', cookie).send({ everywhere: true }), 400, 'everywhere');
      expectProblem(await t.request.get('/v1/auth/sessions?limit=5').set('Cookie', cookie), 400, 'limit');
      // Nothing was done by the refused logout.
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    });

    it('refuses a body that is not JSON (400)', async () => {
      const text = await t.request
        .post('/v1/auth/login')
        .set('Content-Type', 'text/plain')
        .send('email=a@example.test&password=x');
      expectProblem(text, 400);
      const form = await t.request.post('/v1/auth/login').type('form').send({ email: 'a@example.test', password: 'x' });
      expectProblem(form, 400);
      const broken = await t.request.post('/v1/auth/login').set('Content-Type', 'application/json').send('{"email": "a@');
      expectProblem(broken, 400);
      const array = await t.request.post('/v1/auth/login').set('Content-Type', 'application/json').send('[1,2]');
      expectProblem(array, 400);
      const scalar = await t.request.post('/v1/auth/login').set('Content-Type', 'application/json').send('"hello"');
      expectProblem(scalar, 400);
    });

    // Decoded as UTF-8 whatever it was, "Café" sent as ISO-8859-1 was stored as "Caf\uFFFD" and answered 200.
    it('refuses a body that is not UTF-8, or says another charset (400 naming the body)', async () => {
      // Raw bytes: supertest would turn a Buffer into JSON of its own.
      const post = async (type: string, body: Buffer) => {
        const res = await fetch(`${t.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': type }, body });
        return { status: res.status, body: (await res.json()) as { field?: string; title: string } };
      };
      const login = '{"email":"nobody@example.test","password":"caf\u00e9 is not it"}';
      const latin1 = Buffer.from(login, 'latin1');
      const declared = await post('application/json; charset=iso-8859-1', latin1);
      expect(declared).toMatchObject({ status: 400, body: { field: '(body)', title: expect.stringMatching(/UTF-8/) } });
      expect(await post('application/json', latin1)).toMatchObject({ status: 400, body: { field: '(body)' } });
      // UTF-8, said or not, goes on to the sign-in (wrong credentials: 401).
      for (const type of ['application/json; charset=UTF-8', 'application/json']) {
        expect((await post(type, Buffer.from(login, 'utf8'))).status).toBe(401);
      }
    });

    it('refuses fields of the wrong type with their name', async () => {
      expectProblem(await t.request.post('/v1/auth/login').send({ email: 42, password: GOOD_PASSWORD }), 400, 'email');
      expectProblem(await t.request.post('/v1/auth/login').send({ email: 'a@example.test', password: ['x'] }), 400, 'password');
      expectProblem(await t.request.post('/v1/auth/signup').send({}), 400);
    });

    it('carries Retry-After on 429 both as a header and consistent with the body', async () => {
      const email = uniqueEmail('retry');
      await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
      const token = /\/verify\?token=([A-Za-z0-9_%-]+)/.exec((await t.smtp.waitFor(email, /confirm/i)).text)?.[1];
      expect(token).toBeDefined();
      for (let i = 0; i < 5; i++)
        await t.request
          .post('/v1/auth/verify')
          .send({ token, password: `wrong-${i}-xx` })
          .expect(401);
      const res = await t.request.post('/v1/auth/verify').send({ token, password: 'wrong-again-xx' });
      const body = expectProblem(res, 429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(body.title).toMatch(/wait/i);
    });
  });

  describe('cross-site protection', () => {
    it('refuses a cookie-authenticated POST from a foreign Origin (403) and does nothing', async () => {
      const { user, cookie } = await signedInUser();
      const res = await t.request
        .post('/v1/auth/2fa/enroll')
        .set('Cookie', cookie)
        .set('Origin', 'https://evil.example')
        .send({ password: GOOD_PASSWORD });
      expectProblem(res, 403);
      const row = await t.deps.orm.em.fork().findOneOrFail(User, { id: user.id });
      expect(row.totpSecretEnc).toBeNull();

      const logout = await t.request.post('/v1/auth/logout').set('Cookie', cookie).set('Origin', 'https://evil.example');
      expectProblem(logout, 403);
      expect(sessionSetCookie(logout)).toBeUndefined();
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    });

    it('refuses a cross-site DELETE and a password change from a foreign Origin', async () => {
      const { email, cookie } = await signedInUser();
      const [session] = (await t.request.get('/v1/auth/sessions').set('Cookie', cookie).expect(200)).body.sessions;
      expectProblem(
        await t.request.delete(`/v1/auth/sessions/${session.id}`).set('Cookie', cookie).set('Origin', 'http://evil.example'),
        403,
      );
      expectProblem(
        await t.request
          .post('/v1/auth/password/change')
          .set('Cookie', cookie)
          .set('Origin', 'https://evil.example')
          .send({ currentPassword: GOOD_PASSWORD, newPassword: 'amber-lantern-orchard-58' }),
        403,
      );
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
      await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
    });

    it('refuses an Origin on another port or a look-alike host, and an opaque Origin', async () => {
      const { cookie } = await signedInUser();
      const own = new URL(t.url);
      for (const origin of [`http://127.0.0.1:${Number(own.port) + 1}`, `http://127.0.0.1.evil.example:${own.port}`, 'null']) {
        expectProblem(
          await t.request
            .post('/v1/auth/2fa/enroll')
            .set('Cookie', cookie)
            .set('Origin', origin)
            .send({ password: GOOD_PASSWORD }),
          403,
        );
      }
    });

    it('allows the service’s own Origin', async () => {
      const { cookie } = await signedInUser();
      const res = await t.request
        .post('/v1/auth/2fa/enroll')
        .set('Cookie', cookie)
        .set('Origin', t.url)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ password: GOOD_PASSWORD })
        .expect(200);
      expect(res.body.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    });

    it('refuses what the browser marks Sec-Fetch-Site: cross-site, even without an Origin', async () => {
      const { cookie } = await signedInUser();
      expectProblem(
        await t.request
          .post('/v1/auth/2fa/enroll')
          .set('Cookie', cookie)
          .set('Sec-Fetch-Site', 'cross-site')
          .send({ password: GOOD_PASSWORD }),
        403,
      );
      expectProblem(await t.request.post('/v1/auth/logout').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site'), 403);
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    });

    it('lets a cookie-authenticated read through from anywhere (GET changes nothing)', async () => {
      const { cookie } = await signedInUser();
      await t.request.get('/v1/auth/sessions').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(200);
    });

    it('does not refuse a Bearer-token request with a foreign Origin', async () => {
      const { user, workspace } = await createUser(t.deps);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      await t.request
        .post('/v1/auth/logout')
        .set('Authorization', `Bearer ${token}`)
        .set('Origin', 'https://evil.example')
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(204);
      await t.request
        .get('/v1/me')
        .set('Authorization', `Bearer ${token}`)
        .set('Origin', 'https://evil.example')
        .set('Sec-Fetch-Site', 'cross-site')
        .expect(200);
    });
  });
});
