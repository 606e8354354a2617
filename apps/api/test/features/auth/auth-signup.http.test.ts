import { User } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  expireEmailTokens,
  mailsTo,
  sessionCookieOf,
  setCookies,
  userByEmail,
} from '../../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, startTestServer, type TestServer, uniqueEmail } from '../../support/server.ts';
import { linkToken } from '../../support/smtp.ts';

describe('Auth: sign-up, confirmation and resend', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** Signs up and returns the token of the confirmation link e-mailed for it. */
  async function signUp(email: string, extra: Record<string, unknown> = {}) {
    await t.request
      .post('/v1/auth/signup')
      .send({ email, password: GOOD_PASSWORD, ...extra })
      .expect(202);
    const mail = await t.smtp.waitFor(email, /confirm/i);
    return linkToken(mail, 'verify');
  }

  describe('POST /v1/auth/signup', () => {
    it('answers 202 and e-mails a confirmation link to {APP_URL}/verify', async () => {
      const email = uniqueEmail('signup');
      const res = await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: expect.any(String) });
      expect(res.body.message.length).toBeGreaterThan(0);
      expect(setCookies(res)).toEqual([]);

      const mails = mailsTo(t, email);
      expect(mails).toHaveLength(1);
      expect(mails[0]?.text).toContain(`${t.deps.urls.app}/verify?token=`);
      expect(linkToken(mails[0]!, 'verify').length).toBeGreaterThanOrEqual(32);
    });

    it('answers a taken address exactly like a new one, and e-mails its owner sign-in help instead of a link', async () => {
      const email = uniqueEmail('taken');
      const first = await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
      const second = await t.request
        .post('/v1/auth/signup')
        .send({ email: email.toUpperCase(), password: 'another-fine-password-77' })
        .expect(202);
      expect(second.body).toEqual(first.body);
      expect(second.headers['content-type']).toBe(first.headers['content-type']);

      const mails = mailsTo(t, email);
      expect(mails).toHaveLength(2);
      const [welcome, help] = mails as [(typeof mails)[0], (typeof mails)[0]];
      expect(welcome.text).toContain('/verify?token=');
      expect(help.subject).not.toBe(welcome.subject);
      expect(help.text).not.toContain('/verify?token=');
      expect(help.text).toContain(`${t.deps.urls.app}/forgot-password`);
    });

    it('sign-ups for a taken address send its owner one help mail a day and cannot use up the mail a reset needs', async () => {
      const { email } = await createUser(t.deps);
      for (let i = 0; i < 6; i++) {
        await t.request.post('/v1/auth/signup').send({ email, password: 'another-fine-password-77' }).expect(202);
      }
      expect(mailsTo(t, email).filter((m) => m.text.includes('/forgot-password'))).toHaveLength(1);
      await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
      await expect.poll(() => mailsTo(t, email).filter((m) => m.text.includes('/reset-password?token=')).length).toBe(1);
    });

    it('does not change the password of a taken address', async () => {
      const { email } = await createUser(t.deps, { email: uniqueEmail('keep') });
      await t.request.post('/v1/auth/signup').send({ email, password: 'a-different-password-9' }).expect(202);
      expectProblem(await t.request.post('/v1/auth/login').send({ email, password: 'a-different-password-9' }), 401);
      await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
    });

    it('creates a workspace on the Free plan owned by the new user', async () => {
      const email = uniqueEmail('owner');
      const token = await signUp(email, { workspaceName: 'Acme analytics' });
      await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }).expect(200);

      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      expect(login.body.user).toEqual({ id: expect.any(String), email });
      expect(login.body.memberships).toEqual([
        { workspaceId: expect.any(String), name: 'Acme analytics', role: 'owner', plan: 'Free' },
      ]);
    });

    it('names the workspace after the address when no name is given', async () => {
      const email = uniqueEmail('noname');
      const token = await signUp(email);
      await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }).expect(200);
      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      expect(login.body.memberships).toHaveLength(1);
      expect(login.body.memberships[0]).toMatchObject({ role: 'owner', plan: 'Free' });
      expect(login.body.memberships[0].name.length).toBeGreaterThan(0);
    });

    it.each(['qwertyuiop', '1234567890', 'password1234'])(
      'refuses the breached password %s (400, field password)',
      async (pw) => {
        const email = uniqueEmail('breach');
        const res = await t.request.post('/v1/auth/signup').send({ email, password: pw });
        expectProblem(res, 400, 'password');
        expect(mailsTo(t, email)).toEqual([]);
        expect(await t.deps.orm.em.fork().count(User, { email })).toBe(0);
      },
    );

    it('refuses a password shorter than 10 characters (400, field password)', async () => {
      const email = uniqueEmail('short');
      expectProblem(await t.request.post('/v1/auth/signup').send({ email, password: 'xK9#mQ2$v' }), 400, 'password');
      expect(mailsTo(t, email)).toEqual([]);
    });

    it('refuses a password longer than 1024 characters (400, field password)', async () => {
      const res = await t.request.post('/v1/auth/signup').send({ email: uniqueEmail('long'), password: 'x'.repeat(1025) });
      expectProblem(res, 400, 'password');
    });

    it.each(['not-an-email', 'a@', '@example.com', ''])('refuses the address %j (400, field email)', async (email) => {
      expectProblem(await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }), 400, 'email');
    });

    it('requires email and password', async () => {
      expectProblem(await t.request.post('/v1/auth/signup').send({ password: GOOD_PASSWORD }), 400, 'email');
      expectProblem(await t.request.post('/v1/auth/signup').send({ email: uniqueEmail() }), 400, 'password');
    });

    it('refuses a workspace name over 80 characters (400, field workspaceName)', async () => {
      const res = await t.request
        .post('/v1/auth/signup')
        .send({ email: uniqueEmail(), password: GOOD_PASSWORD, workspaceName: 'w'.repeat(81) });
      expectProblem(res, 400, 'workspaceName');
    });
  });

  describe('POST /v1/auth/verify', () => {
    it('confirms the address with the link token and the password, and starts no session', async () => {
      const email = uniqueEmail('verify');
      const token = await signUp(email);
      expectProblem(await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }), 401);

      const res = await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }).expect(200);
      expect(res.body).toEqual({ verified: true });
      expect(setCookies(res)).toEqual([]);

      const login = await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
      const me = await t.request.get('/v1/me').set('Cookie', sessionCookieOf(login)).expect(200);
      expect(me.body.user.emailVerified).toBe(true);
    });

    it('is single use: a second use answers 200 verified false (spec §4)', async () => {
      const token = await signUp(uniqueEmail('once'));
      await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }).expect(200, { verified: true });
      await t.request
        .post('/v1/auth/verify')
        .send({ token, password: GOOD_PASSWORD })
        .expect(200, { verified: false, message: 'This confirmation link is invalid, used or expired: ask for a new one' });
    });

    it('answers an expired link 200 verified false, and the address stays unconfirmed', async () => {
      const email = uniqueEmail('expired');
      const token = await signUp(email);
      await expireEmailTokens(t, (await userByEmail(t, email)).id, 'verify');
      await t.request
        .post('/v1/auth/verify')
        .send({ token, password: GOOD_PASSWORD })
        .expect(200, { verified: false, message: 'This confirmation link is invalid, used or expired: ask for a new one' });
      expectProblem(await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }), 401);
    });

    it('answers an unknown token, and a reset token used as a confirmation token, 200 verified false', async () => {
      await t.request
        .post('/v1/auth/verify')
        .send({ token: 'no-such-token-at-all', password: GOOD_PASSWORD })
        .expect(200, { verified: false, message: 'This confirmation link is invalid, used or expired: ask for a new one' });
      const { email } = await createUser(t.deps, { email: uniqueEmail('purpose'), verified: false });
      await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
      const reset = linkToken(await t.smtp.waitFor(email, /reset/i), 'reset-password');
      await t.request
        .post('/v1/auth/verify')
        .send({ token: reset, password: GOOD_PASSWORD })
        .expect(200, { verified: false, message: 'This confirmation link is invalid, used or expired: ask for a new one' });
    });

    it('answers a wrong password with 401 and keeps the link usable', async () => {
      const email = uniqueEmail('wrongpw');
      const token = await signUp(email);
      const res = await t.request.post('/v1/auth/verify').send({ token, password: 'not-my-password-at-all' });
      expectProblem(res, 401);
      expect(setCookies(res).filter((c) => c.startsWith('us_session='))).toEqual([]);
      await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }).expect(200);
    });

    it('allows five wrong passwords per hour, then answers 429 with Retry-After (even to the right one)', async () => {
      const token = await signUp(uniqueEmail('verify-throttle'));
      for (let i = 0; i < 5; i++) {
        expectProblem(await t.request.post('/v1/auth/verify').send({ token, password: `wrong-password-${i}` }), 401);
      }
      const limited = await t.request.post('/v1/auth/verify').send({ token, password: 'wrong-password-5' });
      expectProblem(limited, 429);
      const retry = Number(limited.headers['retry-after']);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(3600);

      expectProblem(await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }), 429);
    });

    it('counts wrong passwords per account, not per link', async () => {
      const email = uniqueEmail('per-account');
      const first = await signUp(email);
      for (let i = 0; i < 5; i++) {
        expectProblem(await t.request.post('/v1/auth/verify').send({ token: first, password: `wrong-${i}-password` }), 401);
      }
      const before = mailsTo(t, email).length;
      await t.request.post('/v1/auth/verify/resend').send({ email }).expect(202);
      await expect.poll(() => mailsTo(t, email).length).toBe(before + 1);
      const second = linkToken(mailsTo(t, email).at(-1)!, 'verify');
      expect(second).not.toBe(first);
      expectProblem(await t.request.post('/v1/auth/verify').send({ token: second, password: GOOD_PASSWORD }), 429);
    });

    it('validates its body (token required, password 1-1024)', async () => {
      expectProblem(await t.request.post('/v1/auth/verify').send({ password: GOOD_PASSWORD }), 400, 'token');
      expectProblem(await t.request.post('/v1/auth/verify').send({ token: 'abc', password: '' }), 400, 'password');
      expectProblem(await t.request.post('/v1/auth/verify').send({ token: 'abc', password: 'p'.repeat(1025) }), 400, 'password');
    });
  });

  describe('POST /v1/auth/verify/resend', () => {
    it('sends a new working link to an unconfirmed account', async () => {
      const email = uniqueEmail('resend');
      const first = await signUp(email);
      const res = await t.request.post('/v1/auth/verify/resend').send({ email }).expect(202);
      expect(res.body).toEqual({ message: expect.any(String) });

      await expect.poll(() => mailsTo(t, email).length).toBe(2);
      const second = linkToken(mailsTo(t, email)[1]!, 'verify');
      expect(second).not.toBe(first);
      await t.request.post('/v1/auth/verify').send({ token: second, password: GOOD_PASSWORD }).expect(200);
      await t.request.post('/v1/auth/login').send({ email, password: GOOD_PASSWORD }).expect(200);
    });

    it('answers the same for a confirmed account and an unknown address, and sends them nothing', async () => {
      const unconfirmed = await createUser(t.deps, { email: uniqueEmail('rs-unconfirmed'), verified: false });
      const confirmed = await createUser(t.deps, { email: uniqueEmail('rs-confirmed') });
      const unknown = uniqueEmail('rs-unknown');

      const a = await t.request.post('/v1/auth/verify/resend').send({ email: unconfirmed.email }).expect(202);
      const b = await t.request.post('/v1/auth/verify/resend').send({ email: confirmed.email }).expect(202);
      const c = await t.request.post('/v1/auth/verify/resend').send({ email: unknown }).expect(202);
      expect(b.body).toEqual(a.body);
      expect(c.body).toEqual(a.body);

      await expect.poll(() => mailsTo(t, unconfirmed.email).length).toBe(1);
      expect(mailsTo(t, confirmed.email)).toEqual([]);
      expect(mailsTo(t, unknown)).toEqual([]);
    });

    it('refuses a malformed address (400, field email)', async () => {
      expectProblem(await t.request.post('/v1/auth/verify/resend').send({ email: 'nope' }), 400, 'email');
    });
  });
});
