import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/core/security/tokens.ts';
import { throttleKeys } from '../../../src/features/auth/throttle.ts';
import {
  cookieAttributes,
  currentStep,
  enableTwoFactor,
  expectProblem,
  expectProblemCode,
  sessionCookieOf,
  sessionSetCookie,
  setCookies,
  sleepsDuring,
  totpCode,
  uniqueIp,
  wrongCode,
} from '../../support/auth-helpers.ts';
import {
  createUser,
  GOOD_PASSWORD,
  hotKinds,
  signIn,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from '../../support/server.ts';

const WRONG = 'definitely-not-the-password';

describe('Auth: sign-in, two-factor sign-in, sign-out', () => {
  let t: TestServer;
  beforeAll(async () => {
    // TRUST_PROXY lets each test sign in from its own address (X-Forwarded-For), so throttling by
    // address never leaks from one test into another.
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const login = (body: Record<string, unknown>, ip = uniqueIp()) =>
    t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send(body);

  describe('POST /v1/auth/login', () => {
    it('signs in: user and memberships in the body, us_session cookie HttpOnly, SameSite=Lax, Path=/, 30 days', async () => {
      const { user, workspace, email } = await createUser(t.deps, { workspaceName: 'Login workspace' });
      const res = await login({ email, password: GOOD_PASSWORD }).expect(200);
      expect(res.body).toEqual({
        user: { id: user.id, email },
        memberships: [{ workspaceId: workspace.id, name: 'Login workspace', role: 'owner', plan: 'Free' }],
      });

      const line = sessionSetCookie(res);
      expect(line).toBeDefined();
      const attrs = cookieAttributes(line!);
      expect(attrs.has('httponly')).toBe(true);
      expect(attrs.get('samesite')?.toLowerCase()).toBe('lax');
      expect(attrs.get('path')).toBe('/');
      expect(attrs.get('max-age')).toBe(String(30 * 24 * 3600));
      // Plain http on 127.0.0.1: a Secure cookie would never come back, so it is left off.
      expect(attrs.has('secure')).toBe(false);

      const me = await t.request.get('/v1/me').set('Cookie', sessionCookieOf(res)).expect(200);
      expect(me.body.actor).toEqual({ type: 'user', id: user.id });
    });

    it('marks the cookie Secure when the service is not reached as plain-http localhost', async () => {
      const { email } = await createUser(t.deps);
      const res = await t.request
        .post('/v1/auth/login')
        .set('Host', 'stats.example.com')
        .set('X-Forwarded-For', uniqueIp())
        .send({ email, password: GOOD_PASSWORD })
        .expect(200);
      const attrs = cookieAttributes(sessionSetCookie(res)!);
      expect(attrs.has('secure')).toBe(true);
      expect(attrs.has('httponly')).toBe(true);
    });

    it('accepts the address in any letter case', async () => {
      const { email } = await createUser(t.deps);
      await login({ email: email.toUpperCase(), password: GOOD_PASSWORD }).expect(200);
    });

    it('refuses an unconfirmed address with 401 email-not-verified saying to confirm it first, and no cookie', async () => {
      const { email } = await createUser(t.deps, { verified: false });
      const res = await login({ email, password: GOOD_PASSWORD });
      const body = expectProblemCode(res, 'email-not-verified');
      expect(body.title).toMatch(/^Confirm your e-mail address first/);
      expect(sessionSetCookie(res)).toBeUndefined();
    });

    it('counts a right password on an unconfirmed address as a failed sign-in', async () => {
      const { email } = await createUser(t.deps, { verified: false });
      const delays: number[][] = [];
      for (let i = 0; i < 5; i++) delays.push(await sleepsDuring(t, () => login({ email, password: GOOD_PASSWORD }).expect(401)));
      expect(delays).toEqual([[], [], [], [500], [1000]]);
    });

    it('answers a wrong password and an unknown address with the same 401', async () => {
      const { email } = await createUser(t.deps);
      const wrong = await login({ email, password: WRONG });
      const unknown = await login({ email: uniqueEmail('nobody'), password: WRONG });
      const a = expectProblem(wrong, 401);
      const b = expectProblem(unknown, 401);
      expect(b.title).toBe(a.title);
      expect(setCookies(wrong)).toEqual([]);
      expect(setCookies(unknown)).toEqual([]);
    });

    it('does not reveal an unconfirmed account to a wrong password (the usual 401)', async () => {
      const { email } = await createUser(t.deps, { verified: false });
      const unconfirmed = expectProblem(await login({ email, password: WRONG }), 401);
      const unknown = expectProblem(await login({ email: uniqueEmail('nobody'), password: WRONG }), 401);
      expect(unconfirmed.title).toBe(unknown.title);
    });

    it('validates its body', async () => {
      expectProblem(await login({ email: 'nope', password: GOOD_PASSWORD }), 400, 'email');
      expectProblem(await login({ email: uniqueEmail(), password: '' }), 400, 'password');
      expectProblem(await login({ email: uniqueEmail() }), 400, 'password');
    });
  });

  describe('POST /v1/auth/login with two-factor on', () => {
    async function twoFactorUser() {
      const u = await createUser(t.deps);
      const secret = await enableTwoFactor(t, u.user.id);
      return { ...u, secret };
    }

    async function challengeFor(email: string) {
      const res = await login({ email, password: GOOD_PASSWORD }).expect(200);
      expect(res.body).toEqual({ twoFactorRequired: true, challenge: expect.any(String) });
      expect(sessionSetCookie(res)).toBeUndefined();
      return res.body.challenge as string;
    }

    it('asks for the second step without setting a cookie, then signs in with a valid code', async () => {
      const { user, workspace, email, secret } = await twoFactorUser();
      const challenge = await challengeFor(email);
      expect(challenge.length).toBeGreaterThanOrEqual(32);

      const res = await t.request
        .post('/v1/auth/login/2fa')
        .send({ challenge, code: totpCode(secret) })
        .expect(200);
      expect(res.body).toEqual({
        user: { id: user.id, email },
        memberships: [{ workspaceId: workspace.id, name: 'Test workspace', role: 'owner', plan: 'Free' }],
      });
      const attrs = cookieAttributes(sessionSetCookie(res)!);
      expect(attrs.has('httponly')).toBe(true);
      expect(attrs.get('samesite')?.toLowerCase()).toBe('lax');
      const me = await t.request.get('/v1/me').set('Cookie', sessionCookieOf(res)).expect(200);
      expect(me.body.user).toMatchObject({ id: user.id, twoFactor: true });
    });

    it('uses a challenge once', async () => {
      const { email, secret } = await twoFactorUser();
      const challenge = await challengeFor(email);
      const step = currentStep();
      await t.request
        .post('/v1/auth/login/2fa')
        .send({ challenge, code: totpCode(secret, step) })
        .expect(200);
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge, code: totpCode(secret, step + 1) }), 401);
    });

    it('accepts a code once: the same code on a new challenge is 401', async () => {
      const { email, secret } = await twoFactorUser();
      const code = totpCode(secret);
      await t.request
        .post('/v1/auth/login/2fa')
        .send({ challenge: await challengeFor(email), code })
        .expect(200);
      const again = await t.request.post('/v1/auth/login/2fa').send({ challenge: await challengeFor(email), code });
      expectProblem(again, 401);
      expect(sessionSetCookie(again)).toBeUndefined();
    });

    it('answers a wrong code with 401 and no cookie; the challenge stays usable', async () => {
      const { email, secret } = await twoFactorUser();
      const challenge = await challengeFor(email);
      const res = await t.request.post('/v1/auth/login/2fa').send({ challenge, code: wrongCode(secret) });
      expectProblem(res, 401);
      expect(sessionSetCookie(res)).toBeUndefined();
      await t.request
        .post('/v1/auth/login/2fa')
        .send({ challenge, code: totpCode(secret) })
        .expect(200);
    });

    it('allows five wrong codes, then answers 429 with Retry-After, even to a right code', async () => {
      const { email, secret } = await twoFactorUser();
      const challenge = await challengeFor(email);
      for (let i = 0; i < 5; i++) {
        expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge, code: wrongCode(secret) }), 401);
      }
      const limited = await t.request.post('/v1/auth/login/2fa').send({ challenge, code: totpCode(secret) });
      expectProblem(limited, 429);
      const retry = Number(limited.headers['retry-after']);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(300);
      expect(sessionSetCookie(limited)).toBeUndefined();

      // The limit is the account's: a fresh challenge does not reset it.
      const fresh = await challengeFor(email);
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge: fresh, code: totpCode(secret) }), 429);
    });

    it.each(['12345', '1234567', '12345a', ' 123456', 'abcdef'])(
      'refuses the code %j: exactly six digits (400, field code)',
      async (code) => {
        const { email } = await twoFactorUser();
        const challenge = await challengeFor(email);
        expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge, code }), 400, 'code');
      },
    );

    it('answers an unknown challenge with 401', async () => {
      const res = await t.request.post('/v1/auth/login/2fa').send({ challenge: 'made-up-challenge-value', code: '123456' });
      expectProblem(res, 401);
    });

    it('answers an expired challenge with 401', async () => {
      const { user, email, secret } = await twoFactorUser();
      const challenge = await challengeFor(email);
      // An expired challenge is one the hot store no longer holds (that keys run out is the hot-store contract's test).
      const stored = await t.deps.hot.get(throttleKeys.twoFactorChallenge(sha256(challenge)));
      expect(JSON.parse(stored as string).userId).toBe(user.id);
      await t.deps.hot.del(throttleKeys.twoFactorChallenge(sha256(challenge)));
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge, code: totpCode(secret) }), 401);
    });

    it('requires challenge and code', async () => {
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ code: '123456' }), 400, 'challenge');
      expectProblem(await t.request.post('/v1/auth/login/2fa').send({ challenge: 'x' }), 400, 'code');
    });
  });

  describe('sign-in slowdown', () => {
    it('slows an account after three failures from several addresses, and a success clears it', async () => {
      const { email } = await createUser(t.deps);
      const delays: number[][] = [];
      for (let i = 0; i < 5; i++) {
        delays.push(await sleepsDuring(t, () => login({ email, password: WRONG }).expect(401)));
      }
      expect(delays).toEqual([[], [], [], [500], [1000]]);
      // Even the right password waits its turn, then the counter starts again.
      expect(await sleepsDuring(t, () => login({ email, password: GOOD_PASSWORD }).expect(200))).toEqual([2000]);
      expect(await sleepsDuring(t, () => login({ email, password: WRONG }).expect(401))).toEqual([]);
    });
  });

  describe('POST /v1/auth/logout', () => {
    it('answers 204, clears the cookie, and the old cookie is then refused (401)', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);

      const res = await t.request.post('/v1/auth/logout').set('Cookie', cookie).expect(204);
      expect(res.text).toBe('');
      const cleared = sessionSetCookie(res);
      expect(cleared).toBeDefined();
      expect(cleared!.split(';')[0]).toBe('us_session=');
      expect(cookieAttributes(cleared!).get('max-age')).toBe('0');

      const me = await t.request.get('/v1/me').set('Cookie', cookie);
      expectProblem(me, 401);
    });

    it('ends only that session', async () => {
      const { email } = await createUser(t.deps);
      const a = await signIn(t, email);
      const b = await signIn(t, email);
      await t.request.post('/v1/auth/logout').set('Cookie', a).expect(204);
      expectProblem(await t.request.get('/v1/me').set('Cookie', a), 401);
      await t.request.get('/v1/me').set('Cookie', b).expect(200);
    });

    it('answers 204 and clears the cookie without a session too', async () => {
      const res = await t.request.post('/v1/auth/logout').expect(204);
      expect(sessionSetCookie(res)?.split(';')[0]).toBe('us_session=');
    });
  });
});

describe.each(hotKinds())('sign-in slowdown by address (hot state: %s)', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ hot: kind, env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const attempt = (ip: string, email: string, password = WRONG) =>
    t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  it('lets three failures through, then doubles the delay up to 8 s, while the answer stays 401', async () => {
    expect(t.deps.hot.kind).toBe(kind);
    const ip = uniqueIp();
    const delays: number[][] = [];
    for (let i = 0; i < 10; i++) {
      // A different unknown address each time: the slowdown follows the client address.
      delays.push(await sleepsDuring(t, async () => expectProblem(await attempt(ip, uniqueEmail('guess')), 401)));
    }
    expect(delays).toEqual([[], [], [], [500], [1000], [2000], [4000], [8000], [8000], [8000]]);
  });

  it('slows a correct sign-in from that address too, and leaves other addresses alone', async () => {
    const { email } = await createUser(t.deps);
    const ip = uniqueIp();
    for (let i = 0; i < 4; i++) await attempt(ip, uniqueEmail('guess')).expect(401);
    expect(await sleepsDuring(t, () => attempt(ip, email, GOOD_PASSWORD).expect(200))).toEqual([1000]);
    expect(await sleepsDuring(t, () => attempt(uniqueIp(), email, GOOD_PASSWORD).expect(200))).toEqual([]);
  });
});
