import { ApiToken, EmailToken, Session, User } from '@us/db';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  enableTwoFactor,
  expectProblem,
  expireEmailTokens,
  mailsTo,
  sessionSetCookie,
  setCookies,
  sleepsDuring,
  totpCode,
  uniqueIp,
} from '../../support/auth-helpers.ts';
import {
  createToken,
  createUser,
  GOOD_PASSWORD,
  signIn,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from '../../support/server.ts';
import { linkToken } from '../../support/smtp.ts';

const NEW_PASSWORD = 'amber-lantern-orchard-58';
const WRONG = 'definitely-not-the-password';

describe('Auth: password reset and change', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const login = (email: string, password: string, ip = uniqueIp()) =>
    t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  /** A promise held until `release` is called. */
  function gate() {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    return { held, release };
  }

  /** Asks for a reset link and returns its token. */
  async function resetToken(email: string) {
    const before = mailsTo(t, email).length;
    await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
    // Sent after the answer (its time must not tell whether the address has an account).
    await expect.poll(() => mailsTo(t, email).length).toBe(before + 1);
    return linkToken(mailsTo(t, email).at(-1)!, 'reset-password');
  }

  describe('POST /v1/auth/password/reset-request', () => {
    it('answers 202 the same for a known and an unknown address, and e-mails only the known one', async () => {
      const { email } = await createUser(t.deps);
      const unknown = uniqueEmail('reset-unknown');
      const a = await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
      const b = await t.request.post('/v1/auth/password/reset-request').send({ email: unknown }).expect(202);
      expect(a.body).toEqual({ message: expect.any(String) });
      expect(b.body).toEqual(a.body);

      await expect.poll(() => mailsTo(t, email).length).toBe(1);
      expect(mailsTo(t, email)[0]?.text).toContain(`${t.deps.urls.app}/reset-password?token=`);
      expect(mailsTo(t, unknown)).toEqual([]);
    });

    it('refuses a malformed address (400, field email)', async () => {
      expectProblem(await t.request.post('/v1/auth/password/reset-request').send({ email: 'x@' }), 400, 'email');
    });

    /**
     * `hold` makes a step of the mail's way wait for `held`: every request in `paths` must answer meanwhile (its
     * time tells nothing), and one mail goes once it is let go.
     */
    async function answersWhileHeld(hold: (held: Promise<void>) => { mockRestore(): void }, paths: string[]) {
      const { email } = await createUser(t.deps);
      const { held, release } = gate();
      const spy = hold(held);
      try {
        for (const path of paths) await t.request.post(path).send({ email }).expect(202);
        expect(mailsTo(t, email)).toEqual([]);
        release();
        await expect.poll(() => mailsTo(t, email).length).toBe(1);
      } finally {
        release();
        spy.mockRestore();
      }
    }

    // The attack: the lookups (the account, the address's mail budget, the new link) were time only an address
    // with an account took. Held here, they must not hold the answer.
    it('answers before looking the address up, so its time does not tell whether the address has an account', async () => {
      const incr = t.deps.hot.incr.bind(t.deps.hot);
      await answersWhileHeld(
        (held) =>
          vi.spyOn(t.deps.hot, 'incr').mockImplementation(async (key, ttl) => {
            if (key.startsWith('mail-budget:')) await held;
            return incr(key, ttl);
          }),
        ['/v1/auth/password/reset-request', '/v1/auth/verify/resend'],
      );
    });

    // The attack: the answer waited for the mail server for an address with an account only, so one request's
    // time told whether the address had one (100 ms to seconds of SMTP exchange).
    it('answers before the mail is sent, so its time does not tell whether the address has an account', async () => {
      const send = t.deps.mailer.send.bind(t.deps.mailer);
      await answersWhileHeld(
        (held) =>
          vi.spyOn(t.deps.mailer, 'send').mockImplementation(async (mail) => {
            await held;
            return send(mail);
          }),
        ['/v1/auth/password/reset-request'],
      );
    });
  });

  describe('POST /v1/auth/password/reset', () => {
    it('sets the new password: the old one stops working, the new one signs in', async () => {
      const { email } = await createUser(t.deps);
      const token = await resetToken(email);
      const res = await t.request.post('/v1/auth/password/reset').send({ token, password: NEW_PASSWORD }).expect(200);
      expect(res.body).toEqual({ reset: true });
      expect(sessionSetCookie(res)).toBeUndefined();
      expectProblem(await login(email, GOOD_PASSWORD), 401);
      await login(email, NEW_PASSWORD).expect(200);
    });

    it('a sign-in that checked the old password while the reset went through starts no session', async () => {
      const { user, email } = await createUser(t.deps);
      const token = await resetToken(email);
      // Failed guesses on the account slow its next sign-in down: it waits after reading the account and
      // before checking the password, and the reset goes through in that wait.
      for (let i = 0; i < 3; i++) expectProblem(await login(email, WRONG), 401);
      const sleep = t.deps.sleep;
      t.deps.sleep = async () => {
        await t.request.post('/v1/auth/password/reset').send({ token, password: NEW_PASSWORD }).expect(200);
      };
      try {
        const res = await login(email, GOOD_PASSWORD);
        expectProblem(res, 401);
        expect(sessionSetCookie(res)).toBeUndefined();
      } finally {
        t.deps.sleep = sleep;
      }
      expect(await t.deps.orm.em.fork().count(Session, { user: user.id })).toBe(0);
      await login(email, NEW_PASSWORD).expect(200);
    });

    it('a two-factor step begun with the old password starts no session once the reset went through', async () => {
      const { user, email } = await createUser(t.deps);
      const secret = await enableTwoFactor(t, user.id);
      const challenge = (await login(email, GOOD_PASSWORD).expect(200)).body.challenge as string;
      expect(challenge).toBeTruthy();
      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(email), password: NEW_PASSWORD })
        .expect(200);
      const res = await t.request.post('/v1/auth/login/2fa').send({ challenge, code: totpCode(secret) });
      expectProblem(res, 401);
      expect(sessionSetCookie(res)).toBeUndefined();
      expect(await t.deps.orm.em.fork().count(Session, { user: user.id })).toBe(0);
    });

    it('ends every session of the person', async () => {
      const { user, email } = await createUser(t.deps);
      const a = await signIn(t, email);
      const b = await signIn(t, email);
      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(email), password: NEW_PASSWORD })
        .expect(200);
      expectProblem(await t.request.get('/v1/me').set('Cookie', a), 401);
      expectProblem(await t.request.get('/v1/me').set('Cookie', b), 401);
      expect(await t.deps.orm.em.fork().count(Session, { user: user.id })).toBe(0);
    });

    it('revokes every API token the person made, in every workspace, and no one else’s', async () => {
      const owner = await createUser(t.deps);
      const other = await createUser(t.deps);
      const mine = await createToken(t.deps, {
        userId: owner.user.id,
        workspaceId: owner.workspace.id,
        scopes: ['analytics:read'],
      });
      const mineElsewhere = await createToken(t.deps, {
        userId: owner.user.id,
        workspaceId: other.workspace.id,
        scopes: ['sites:read'],
      });
      const theirs = await createToken(t.deps, {
        userId: other.user.id,
        workspaceId: other.workspace.id,
        scopes: ['sites:read'],
      });
      for (const tk of [mine, mineElsewhere, theirs]) {
        await t.request.get('/v1/me').set('Authorization', `Bearer ${tk.token}`).expect(200);
      }

      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(owner.email), password: NEW_PASSWORD })
        .expect(200);

      for (const tk of [mine, mineElsewhere]) {
        const res = await t.request.get('/v1/me').set('Authorization', `Bearer ${tk.token}`);
        expectProblem(res, 401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      await t.request.get('/v1/me').set('Authorization', `Bearer ${theirs.token}`).expect(200);
      const rows = await t.deps.orm.em.fork().find(ApiToken, { id: [mine.id, mineElsewhere.id] });
      expect(rows.map((r) => r.revokedAt)).toEqual([expect.any(Date), expect.any(Date)]);
    });

    it('clears sign-in throttling of the account', async () => {
      const { email } = await createUser(t.deps);
      const failures: number[][] = [];
      for (let i = 0; i < 5; i++) failures.push(await sleepsDuring(t, () => login(email, WRONG).expect(401)));
      expect(failures).toEqual([[], [], [], [500], [1000]]);

      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(email), password: NEW_PASSWORD })
        .expect(200);

      expect(await sleepsDuring(t, () => login(email, WRONG).expect(401))).toEqual([]);
      expect(await sleepsDuring(t, () => login(email, NEW_PASSWORD).expect(200))).toEqual([]);
    });

    it('clears the slowdown its failures caused at the addresses they came from, and no other', async () => {
      const { email } = await createUser(t.deps);
      const ip = uniqueIp();
      // Two failures from this address against other accounts, three against this one.
      for (let i = 0; i < 2; i++) await login(uniqueEmail('elsewhere'), WRONG, ip).expect(401);
      for (let i = 0; i < 3; i++) await login(email, WRONG, ip).expect(401);
      expect(await sleepsDuring(t, () => login(uniqueEmail('elsewhere'), WRONG, ip).expect(401))).toEqual([2000]);

      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(email), password: NEW_PASSWORD })
        .expect(200);

      // The address keeps its three failures against other accounts: the next one is its fourth.
      expect(await sleepsDuring(t, () => login(uniqueEmail('elsewhere'), WRONG, ip).expect(401))).toEqual([500]);
      expect(await sleepsDuring(t, () => login(email, NEW_PASSWORD, ip).expect(200))).toEqual([1000]);
    });

    it('clears the slowdown of an address whose failures were all against this account', async () => {
      const { email } = await createUser(t.deps);
      const ip = uniqueIp();
      for (let i = 0; i < 6; i++) await login(email, WRONG, ip).expect(401);
      await t.request
        .post('/v1/auth/password/reset')
        .send({ token: await resetToken(email), password: NEW_PASSWORD })
        .expect(200);
      expect(await sleepsDuring(t, () => login(email, NEW_PASSWORD, ip).expect(200))).toEqual([]);
    });

    it('is single use (400, field token)', async () => {
      const { email } = await createUser(t.deps);
      const token = await resetToken(email);
      await t.request.post('/v1/auth/password/reset').send({ token, password: NEW_PASSWORD }).expect(200);
      expectProblem(
        await t.request.post('/v1/auth/password/reset').send({ token, password: 'yet-another-password-3' }),
        400,
        'token',
      );
      await login(email, NEW_PASSWORD).expect(200);
    });

    it('refuses a link older than one hour (400, field token)', async () => {
      const { user, email } = await createUser(t.deps);
      const token = await resetToken(email);
      await expireEmailTokens(t, user.id, 'reset');
      expectProblem(await t.request.post('/v1/auth/password/reset').send({ token, password: NEW_PASSWORD }), 400, 'token');
      await login(email, GOOD_PASSWORD).expect(200);
    });

    it('issues links valid for one hour', async () => {
      const { email } = await createUser(t.deps);
      const before = Date.now();
      await resetToken(email);
      const em = t.deps.orm.em.fork();
      const user = await em.findOneOrFail(User, { email });
      const row = await em.findOneOrFail(EmailToken, { user: user.id, purpose: 'reset' });
      const ttl = (row.expiresAt.getTime() - before) / 1000;
      expect(ttl).toBeGreaterThan(3600 - 60);
      expect(ttl).toBeLessThanOrEqual(3600 + 60);
    });

    it('refuses an unknown token and a confirmation token (400, field token)', async () => {
      expectProblem(
        await t.request.post('/v1/auth/password/reset').send({ token: 'made-up', password: NEW_PASSWORD }),
        400,
        'token',
      );
      const email = uniqueEmail('verify-as-reset');
      await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
      const verifyToken = linkToken(mailsTo(t, email).at(-1)!, 'verify');
      expectProblem(
        await t.request.post('/v1/auth/password/reset').send({ token: verifyToken, password: NEW_PASSWORD }),
        400,
        'token',
      );
    });

    it('refuses a breached or short new password (400, field password) and keeps the link usable', async () => {
      const { email } = await createUser(t.deps);
      const token = await resetToken(email);
      expectProblem(await t.request.post('/v1/auth/password/reset').send({ token, password: 'qwertyuiop' }), 400, 'password');
      expectProblem(await t.request.post('/v1/auth/password/reset').send({ token, password: 'short' }), 400, 'password');
      await login(email, GOOD_PASSWORD).expect(200);
      await t.request.post('/v1/auth/password/reset').send({ token, password: NEW_PASSWORD }).expect(200);
    });
  });

  describe('POST /v1/auth/password/change (person)', () => {
    const change = (cookie: string, body: Record<string, unknown>) =>
      t.request.post('/v1/auth/password/change').set('Cookie', cookie).send(body);

    it('changes the password, keeps this session and ends the others', async () => {
      const { user, email } = await createUser(t.deps);
      const current = await signIn(t, email);
      const other = await signIn(t, email);
      const res = await change(current, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }).expect(200);
      expect(res.body).toEqual({ changed: true });

      await t.request.get('/v1/me').set('Cookie', current).expect(200);
      expectProblem(await t.request.get('/v1/me').set('Cookie', other), 401);
      expect(await t.deps.orm.em.fork().count(Session, { user: user.id })).toBe(1);
      expectProblem(await login(email, GOOD_PASSWORD), 401);
      await login(email, NEW_PASSWORD).expect(200);
    });

    it('refuses a wrong current password (400, field currentPassword) and keeps the old password', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      expectProblem(await change(cookie, { currentPassword: WRONG, newPassword: NEW_PASSWORD }), 400, 'currentPassword');
      await login(email, GOOD_PASSWORD).expect(200);
    });

    it('refuses a breached, short or missing new password (400, field newPassword)', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      expectProblem(await change(cookie, { currentPassword: GOOD_PASSWORD, newPassword: '1234567890' }), 400, 'newPassword');
      expectProblem(await change(cookie, { currentPassword: GOOD_PASSWORD, newPassword: 'tiny' }), 400, 'newPassword');
      expectProblem(await change(cookie, { currentPassword: GOOD_PASSWORD }), 400, 'newPassword');
      await login(email, GOOD_PASSWORD).expect(200);
    });

    it('slows the answers after three wrong current passwords, and the fifth signs the session out', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const other = await signIn(t, email);
      const delays: number[][] = [];
      for (let i = 0; i < 4; i++) {
        delays.push(
          await sleepsDuring(t, async () =>
            expectProblem(await change(cookie, { currentPassword: WRONG, newPassword: NEW_PASSWORD }), 400, 'currentPassword'),
          ),
        );
      }
      expect(delays).toEqual([[], [], [], [500]]);

      const before = t.sleeps.length;
      const fifth = await change(cookie, { currentPassword: WRONG, newPassword: NEW_PASSWORD });
      expect(t.sleeps.slice(before)).toEqual([1000]);
      expectProblem(fifth, 401);
      expect(sessionSetCookie(fifth)?.split(';')[0]).toBe('us_session=');

      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie), 401);
      // Only the session that guessed is signed out; the password is unchanged.
      await t.request.get('/v1/me').set('Cookie', other).expect(200);
      await login(email, GOOD_PASSWORD).expect(200);
    });

    it('counts wrong current passwords per session', async () => {
      const { email } = await createUser(t.deps);
      const a = await signIn(t, email);
      const b = await signIn(t, email);
      for (let i = 0; i < 4; i++) await change(a, { currentPassword: WRONG, newPassword: NEW_PASSWORD }).expect(400);
      expect(await sleepsDuring(t, () => change(b, { currentPassword: WRONG, newPassword: NEW_PASSWORD }).expect(400))).toEqual(
        [],
      );
    });

    it('is refused to an API token (403) and without credentials (401)', async () => {
      const { user, workspace } = await createUser(t.deps);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['account:admin'] });
      const res = await t.request
        .post('/v1/auth/password/change')
        .set('Authorization', `Bearer ${token}`)
        .send({ currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD });
      expectProblem(res, 403);
      expectProblem(
        await t.request.post('/v1/auth/password/change').send({ currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }),
        401,
      );
      expect(setCookies(res)).toEqual([]);
    });
  });
});
