import { User } from '@us/db';
import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentStep,
  enableTwoFactor,
  expectProblem,
  sessionCookieOf,
  sessionSetCookie,
  totpCode,
  wrongCode,
} from '../../support/auth-helpers.ts';
import { createToken, createUser, GOOD_PASSWORD, signIn, startTestServer, type TestServer } from '../../support/server.ts';

const WRONG = 'definitely-not-the-password';

describe('Auth: two-factor enrolment, confirmation, disabling', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const post = (path: string, cookie: string, body: Record<string, unknown>) =>
    t.request.post(`/v1/auth/2fa/${path}`).set('Cookie', cookie).send(body);

  async function signedInUser() {
    const u = await createUser(t.deps);
    return { ...u, cookie: await signIn(t, u.email) };
  }

  async function enrol(cookie: string): Promise<string> {
    const res = await post('enroll', cookie, { password: GOOD_PASSWORD }).expect(200);
    return res.body.secret as string;
  }

  const twoFactorOn = async (cookie: string): Promise<boolean> =>
    (await t.request.get('/v1/me').set('Cookie', cookie).expect(200)).body.user.twoFactor;

  describe('POST /v1/auth/2fa/enroll (person)', () => {
    it('returns a base32 secret and an otpauth:// URI carrying it; two-factor is not on yet', async () => {
      const { email, cookie } = await signedInUser();
      const res = await post('enroll', cookie, { password: GOOD_PASSWORD }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['otpauthUri', 'secret']);
      const { secret, otpauthUri } = res.body as { secret: string; otpauthUri: string };
      expect(secret).toMatch(/^[A-Z2-7]{16,}=*$/);
      expect(otpauthUri.startsWith('otpauth://totp/')).toBe(true);

      const parsed = URI.parse(otpauthUri);
      expect(parsed).toBeInstanceOf(TOTP);
      const totp = parsed as TOTP;
      expect(totp.secret.base32).toBe(secret);
      expect(totp.digits).toBe(6);
      expect(totp.period).toBe(30);
      expect(totp.label).toBe(email);

      expect(await twoFactorOn(cookie)).toBe(false);
      // Not on yet: signing in still needs no second step.
      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      expect(login.body.twoFactorRequired).toBeUndefined();
    });

    it('refuses a wrong password (400, field password) and stores nothing', async () => {
      const { user, cookie } = await signedInUser();
      expectProblem(await post('enroll', cookie, { password: WRONG }), 400, 'password');
      const row = await t.deps.orm.em.fork().findOneOrFail(User, { id: user.id });
      expect(row.totpSecretEnc).toBeNull();
    });

    it('stores the secret encrypted, never in the clear', async () => {
      const { user, cookie } = await signedInUser();
      const secret = await enrol(cookie);
      const row = await t.deps.orm.em.fork().findOneOrFail(User, { id: user.id });
      expect(row.totpSecretEnc).toEqual(expect.any(String));
      expect(row.totpSecretEnc).not.toContain(secret);
    });

    it('refuses while two-factor is already on (409)', async () => {
      const { user, cookie } = await signedInUser();
      await enableTwoFactor(t, user.id);
      expectProblem(await post('enroll', cookie, { password: GOOD_PASSWORD }), 409);
    });

    it('requires a password (400, field password)', async () => {
      const { cookie } = await signedInUser();
      expectProblem(await post('enroll', cookie, {}), 400, 'password');
    });
  });

  describe('POST /v1/auth/2fa/confirm (person)', () => {
    it('turns two-factor on with a first valid code; sign-in then needs the second step', async () => {
      const { email, cookie } = await signedInUser();
      const secret = await enrol(cookie);
      const res = await post('confirm', cookie, { code: totpCode(secret) }).expect(200);
      expect(res.body).toEqual({ enabled: true });
      expect(await twoFactorOn(cookie)).toBe(true);

      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      expect(login.body).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
      expect(sessionSetCookie(login)).toBeUndefined();
    });

    it('refuses a wrong code (400, field code) and stays off', async () => {
      const { cookie } = await signedInUser();
      const secret = await enrol(cookie);
      expectProblem(await post('confirm', cookie, { code: wrongCode(secret) }), 400, 'code');
      expect(await twoFactorOn(cookie)).toBe(false);
    });

    it('refuses a code that is not six digits (400, field code)', async () => {
      const { cookie } = await signedInUser();
      await enrol(cookie);
      for (const code of ['12345', '1234567', 'abcdef', 123456]) {
        expectProblem(await post('confirm', cookie, { code }), 400, 'code');
      }
    });

    it('refuses a code before enrolment (400, field code)', async () => {
      const { cookie } = await signedInUser();
      const stranger = new Secret({ size: 20 }).base32;
      expectProblem(await post('confirm', cookie, { code: totpCode(stranger) }), 400, 'code');
      expect(await twoFactorOn(cookie)).toBe(false);
    });

    it('a code of an older enrolment no longer works after enrolling again', async () => {
      const { cookie } = await signedInUser();
      const first = await enrol(cookie);
      const second = await enrol(cookie);
      expect(second).not.toBe(first);
      const oldCode = totpCode(first);
      expectProblem(await post('confirm', cookie, { code: oldCode }), 400, 'code');
      await post('confirm', cookie, { code: totpCode(second) }).expect(200);
    });
  });

  describe('POST /v1/auth/2fa/disable (person)', () => {
    it('turns two-factor off with the password and a valid code', async () => {
      const { user, email, cookie } = await signedInUser();
      const secret = await enableTwoFactor(t, user.id);
      const res = await post('disable', cookie, { password: GOOD_PASSWORD, code: totpCode(secret) }).expect(200);
      expect(res.body).toEqual({ enabled: false });
      expect(await twoFactorOn(cookie)).toBe(false);
      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      sessionCookieOf(login);
    });

    it('needs the right password (400, field password) and stays on', async () => {
      const { user, cookie } = await signedInUser();
      const secret = await enableTwoFactor(t, user.id);
      expectProblem(await post('disable', cookie, { password: WRONG, code: totpCode(secret) }), 400, 'password');
      expect(await twoFactorOn(cookie)).toBe(true);
    });

    it('needs a valid code (400, field code) and stays on', async () => {
      const { user, cookie } = await signedInUser();
      const secret = await enableTwoFactor(t, user.id);
      expectProblem(await post('disable', cookie, { password: GOOD_PASSWORD, code: wrongCode(secret) }), 400, 'code');
      expectProblem(await post('disable', cookie, { password: GOOD_PASSWORD }), 400, 'code');
      expect(await twoFactorOn(cookie)).toBe(true);
    });

    it('refuses when two-factor is not on (409)', async () => {
      const { cookie } = await signedInUser();
      expectProblem(await post('disable', cookie, { password: GOOD_PASSWORD, code: '123456' }), 409);
    });
  });

  describe('a code is accepted once', () => {
    it('the code that confirmed cannot also disable; the next one can', async () => {
      const { cookie } = await signedInUser();
      const secret = await enrol(cookie);
      const step = currentStep();
      await post('confirm', cookie, { code: totpCode(secret, step) }).expect(200);
      expectProblem(await post('disable', cookie, { password: GOOD_PASSWORD, code: totpCode(secret, step) }), 400, 'code');
      expect(await twoFactorOn(cookie)).toBe(true);
      await post('disable', cookie, { password: GOOD_PASSWORD, code: totpCode(secret, step + 1) }).expect(200);
    });

    it('the code that signed in cannot sign in again', async () => {
      const { user, email } = await createUser(t.deps);
      const secret = await enableTwoFactor(t, user.id);
      const code = totpCode(secret);
      const challenge = async () =>
        (await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200)).body.challenge as string;
      await t.request
        .post('/v1/auth/login/2fa')
        .send({ challenge: await challenge(), code })
        .expect(200);
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge: await challenge(), code }), 401);
    });
  });

  it('the two-factor routes are refused to API tokens (403)', async () => {
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['account:admin'] });
    const auth = `Bearer ${token}`;
    expectProblem(await t.request.post('/v1/auth/2fa/enroll').set('Authorization', auth).send({ password: GOOD_PASSWORD }), 403);
    expectProblem(await t.request.post('/v1/auth/2fa/confirm').set('Authorization', auth).send({ code: '123456' }), 403);
    expectProblem(
      await t.request.post('/v1/auth/2fa/disable').set('Authorization', auth).send({ password: GOOD_PASSWORD, code: '123456' }),
      403,
    );
    expectProblem(await t.request.post('/v1/auth/2fa/enroll').send({ password: GOOD_PASSWORD }), 401);
  });
});
