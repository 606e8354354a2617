import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, mailsTo, uniqueIp } from '../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, startTestServer, type TestServer } from '../support/server.ts';
import { linkToken } from '../support/smtp.ts';

/**
 * A reset link left in a mailbox (or a forwarded e-mail) must not outlive the reset the person made
 * with another link: whoever holds it later could take the account over again.
 */
describe('attack: an older reset link after the password was reset', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  it('once one link resets the password, every other unused link of that person is refused', async () => {
    const { email } = await createUser(t.deps);
    for (let i = 0; i < 2; i++) await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
    await expect.poll(() => mailsTo(t, email).length).toBe(2);
    const [older, newer] = mailsTo(t, email).map((m) => linkToken(m, 'reset-password'));
    expect(older).toBeDefined();
    expect(newer).not.toBe(older);

    await t.request.post('/v1/auth/password/reset').send({ token: newer, password: 'amber-lantern-orchard-58' }).expect(200);
    expectProblem(
      await t.request.post('/v1/auth/password/reset').send({ token: older, password: 'taken-over-again-77' }),
      400,
      'token',
    );

    await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email, password: 'amber-lantern-orchard-58' })
      .expect(200);
    expectProblem(
      await t.request.post('/v1/auth/login').set('X-Forwarded-For', uniqueIp()).send({ email, password: GOOD_PASSWORD }),
      401,
    );
  });

  it('another person’s reset links stay usable', async () => {
    const a = await createUser(t.deps);
    const b = await createUser(t.deps);
    await t.request.post('/v1/auth/password/reset-request').send({ email: a.email }).expect(202);
    await t.request.post('/v1/auth/password/reset-request').send({ email: b.email }).expect(202);
    await expect.poll(() => mailsTo(t, a.email).length + mailsTo(t, b.email).length).toBe(2);
    const tokenA = linkToken(mailsTo(t, a.email).at(-1)!, 'reset-password');
    const tokenB = linkToken(mailsTo(t, b.email).at(-1)!, 'reset-password');
    await t.request.post('/v1/auth/password/reset').send({ token: tokenA, password: 'amber-lantern-orchard-58' }).expect(200);
    await t.request.post('/v1/auth/password/reset').send({ token: tokenB, password: 'amber-lantern-orchard-58' }).expect(200);
  });
});
