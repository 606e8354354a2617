import { LIMITS } from '@us/shared';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableTwoFactor, expectProblem, mailsTo, sleepsDuring, totpCode, uniqueIp, wrongCode } from '../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, signIn, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';
import { linkToken } from '../support/smtp.ts';

const WRONG = 'definitely-not-the-password';
const NEW_PASSWORD = 'amber-lantern-orchard-58';
const STORM = 20;

/**
 * Guesses fired all at once over REST: every throttle counts an attempt before it checks it, so a
 * burst gets no more guesses checked than one request after another would.
 */
describe('attack: concurrent guesses against the throttles', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const burst = (fire: (i: number) => Promise<Response>) => Promise.all(Array.from({ length: STORM }, (_, i) => fire(i)));
  const statuses = (answers: Response[]) => answers.map((r) => r.status);
  const count = (answers: Response[], status: number) => answers.filter((r) => r.status === status).length;
  /** Of answers sent at once past a budget: `allowed` answered `status`, the rest 429 with `Retry-After`. */
  const expectBudget = (answers: Response[], allowed: number, status: number) => {
    expect(count(answers, status)).toBe(allowed);
    expect(count(answers, 429)).toBe(answers.length - allowed);
    const refused = answers.find((r) => r.status === 429) as Response;
    expectProblem(refused, 429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  };

  it('two-factor sign-in: of 20 wrong codes at once at most 5 are checked, the rest 429; the right code next is 429 too', async () => {
    const { user, email } = await createUser(t.deps);
    const secret = await enableTwoFactor(t, user.id);
    const start = await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email, password: GOOD_PASSWORD });
    const challenge = start.body.challenge as string;
    expect(challenge).toEqual(expect.any(String));

    const answers = await burst(() => t.request.post('/v1/auth/login/2fa').send({ challenge, code: wrongCode(secret) }));
    expect(count(answers, 401)).toBeLessThanOrEqual(5);
    expect(count(answers, 401) + count(answers, 429)).toBe(STORM);
    for (const r of answers.filter((a) => a.status === 429)) {
      expectProblem(r, 429);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }

    const right = await t.request.post('/v1/auth/login/2fa').send({ challenge, code: totpCode(secret) });
    expectProblem(right, 429);
    expect(right.headers['set-cookie']).toBeUndefined();
  });

  it('verify: of 20 wrong passwords at once at most 5 are checked, the rest 429; the right password next is 429 too', async () => {
    const email = uniqueEmail('verify-storm');
    await t.request.post('/v1/auth/signup').send({ email, password: GOOD_PASSWORD }).expect(202);
    const token = linkToken(mailsTo(t, email).at(-1)!, 'verify');

    const answers = await burst((i) => t.request.post('/v1/auth/verify').send({ token, password: `${WRONG}-${i}` }));
    expect(count(answers, 401)).toBeLessThanOrEqual(5);
    expect(count(answers, 401) + count(answers, 429)).toBe(STORM);

    expectProblem(await t.request.post('/v1/auth/verify').send({ token, password: GOOD_PASSWORD }), 429);
  });

  it('password change: of 20 wrong current passwords at once at most 5 are checked, and the session is signed out', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);

    const answers = await burst((i) =>
      t.request
        .post('/v1/auth/password/change')
        .set('Cookie', cookie)
        .send({ currentPassword: `${WRONG}-${i}`, newPassword: NEW_PASSWORD }),
    );
    // Checked and wrong: 400 for the first four, the fifth says it signed the session out.
    const wrongOnes = answers.filter((r) => r.status === 400);
    const fifth = answers.filter((r) => r.status === 401 && /fifth/i.test(r.body.title));
    expect(wrongOnes.length + fifth.length, `statuses ${statuses(answers)}`).toBeLessThanOrEqual(5);
    for (const r of wrongOnes) expectProblem(r, 400, 'currentPassword');
    for (const r of answers.filter((a) => a.status !== 400)) expectProblem(r, 401);

    expectProblem(await t.request.get('/v1/me').set('Cookie', cookie), 401);
    await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email, password: GOOD_PASSWORD })
      .expect(200);
  });

  it('two-factor enrol shares the session’s wrong-password count with password change', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);
    for (let i = 0; i < 3; i++) {
      expectProblem(
        await t.request
          .post('/v1/auth/password/change')
          .set('Cookie', cookie)
          .send({ currentPassword: WRONG, newPassword: NEW_PASSWORD }),
        400,
        'currentPassword',
      );
    }
    expectProblem(await t.request.post('/v1/auth/2fa/enroll').set('Cookie', cookie).send({ password: WRONG }), 400, 'password');
    const fifth = await t.request.post('/v1/auth/2fa/enroll').set('Cookie', cookie).send({ password: WRONG });
    expectProblem(fifth, 401);
    expectProblem(await t.request.get('/v1/me').set('Cookie', cookie), 401);
  });

  it('two-factor confirm: of 20 wrong codes at once at most 5 are checked, the rest 429; the right code next is 429 too', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);
    const secret = (
      await t.request.post('/v1/auth/2fa/enroll').set('Cookie', cookie).send({ password: GOOD_PASSWORD }).expect(200)
    ).body.secret as string;

    const answers = await burst(() =>
      t.request
        .post('/v1/auth/2fa/confirm')
        .set('Cookie', cookie)
        .send({ code: wrongCode(secret) }),
    );
    expect(count(answers, 400)).toBeLessThanOrEqual(5);
    expect(count(answers, 400) + count(answers, 429)).toBe(STORM);

    expectProblem(
      await t.request
        .post('/v1/auth/2fa/confirm')
        .set('Cookie', cookie)
        .send({ code: totpCode(secret) }),
      429,
    );
    const me = await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    expect(me.body.user.twoFactor).toBe(false);
  });

  it('sign-in: 20 wrong passwords at once from one address, the later answers are slowed', async () => {
    const { email } = await createUser(t.deps);
    const ip = uniqueIp();
    let answers: Response[] = [];
    const delays = await sleepsDuring(t, async () => {
      answers = await burst(() => t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password: WRONG }));
    });
    for (const r of answers) expectProblem(r, 401);
    // Three free failures: every later attempt waits, doubling up to 8 s.
    expect(delays.length).toBeGreaterThanOrEqual(STORM - 3);
    expect(Math.max(...delays)).toBe(8000);
  });

  it(`sign-up: ${LIMITS.signupsPerAddress} an hour from one address, counted before any work; past them 429, other addresses go on`, async () => {
    const ip = uniqueIp();
    const emails = Array.from({ length: LIMITS.signupsPerAddress + 5 }, () => uniqueEmail('storm'));
    const answers = await Promise.all(
      emails.map((email) =>
        t.request.post('/v1/auth/signup').set('X-Forwarded-For', ip).send({ email, password: GOOD_PASSWORD }),
      ),
    );
    expectBudget(answers, LIMITS.signupsPerAddress, 202);
    // A refused sign-up made no account.
    const [made] = await t.deps.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from users where email = any(?::text[])', [`{${emails.join(',')}}`]);
    expect(Number(made?.n)).toBe(LIMITS.signupsPerAddress);
    await t.request
      .post('/v1/auth/signup')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email: uniqueEmail(), password: GOOD_PASSWORD })
      .expect(202);
  });

  it(`sign-in: past ${LIMITS.loginFailuresPerAddress} failures an hour from one address, 429 without a check (even the right password); another address signs in`, async () => {
    // The slowdown delays each answer, but guesses sent at once were all checked after their delay: each an
    // Argon2 verification on the shared thread pool.
    const { email } = await createUser(t.deps);
    const ip = uniqueIp();
    const answers = await Promise.all(
      Array.from({ length: LIMITS.loginFailuresPerAddress + 5 }, () =>
        t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password: WRONG }),
      ),
    );
    expectBudget(answers, LIMITS.loginFailuresPerAddress, 401);
    expectProblem(
      await t.request.post('/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password: GOOD_PASSWORD }),
      429,
    );
    await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email, password: GOOD_PASSWORD })
      .expect(200);
  });

  // The attack: an IPv6 client picks a new address in its /64 for each request, so a budget per whole address
  // never counted it twice.
  it('sign-up from a new IPv6 address in one /64 each time is one client: past its budget 429; another /64 goes on', async () => {
    const block = `2001:db8:${(Date.now() % 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const answers = await Promise.all(
      Array.from({ length: LIMITS.signupsPerAddress + 5 }, (_, i) =>
        t.request
          .post('/v1/auth/signup')
          .set('X-Forwarded-For', `${block}:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`)
          .send({ email: uniqueEmail('v6'), password: GOOD_PASSWORD }),
      ),
    );
    expectBudget(answers, LIMITS.signupsPerAddress, 202);
    await t.request
      .post('/v1/auth/signup')
      .set('X-Forwarded-For', `2001:db8:ffff:${Math.floor(Math.random() * 0xffff).toString(16)}::1`)
      .send({ email: uniqueEmail(), password: GOOD_PASSWORD })
      .expect(202);
  });

  // The attack: failures against an account were counted, against an address with no account not; a few wrong
  // passwords sent from new addresses then showed the slowdown only where an account existed.
  it('failed sign-ins slow an address with an account and one without alike', async () => {
    const { email } = await createUser(t.deps);
    const nobody = uniqueEmail('nobody');
    const delaysFor = (address: string) =>
      sleepsDuring(t, async () => {
        for (let i = 0; i < 5; i++) {
          await t.request
            .post('/v1/auth/login')
            .set('X-Forwarded-For', uniqueIp())
            .send({ email: address, password: WRONG })
            .expect(401);
        }
      });
    const known = await delaysFor(email);
    expect(known.length).toBeGreaterThan(0);
    expect(await delaysFor(nobody)).toEqual(known);
  });
});
