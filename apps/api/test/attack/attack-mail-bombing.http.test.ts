import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, mailsTo, uniqueIp } from '../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, signedInOwner, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Strangers use the service to flood someone's inbox: sign-ups for a taken address, resends, resets,
 * invitations. Every address gets at most five of these e-mails an hour, whatever sends them; the
 * auth routes answer as before (nothing to learn), invitations say 429.
 */
describe('attack: mail bombing through the service', () => {
  let t: TestServer;
  beforeAll(async () => {
    // Each sign-up of the flood from an address of its own (TRUST_PROXY): an address has its own sign-up budget.
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  it('50 sign-ups at once for a taken address, from 50 addresses: every answer 202, at most 5 e-mails reach it', async () => {
    const { email } = await createUser(t.deps);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.request.post('/v1/auth/signup').set('X-Forwarded-For', uniqueIp()).send({ email, password: GOOD_PASSWORD }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    const got = mailsTo(t, email).length;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThanOrEqual(5);
  });

  it('the budget is one per address across kinds: resends and resets together send at most 5', async () => {
    const { email } = await createUser(t.deps, { verified: false });
    for (let i = 0; i < 4; i++) {
      await t.request.post('/v1/auth/verify/resend').send({ email }).expect(202);
      await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
    }
    await expect.poll(() => mailsTo(t, email).length).toBe(5);
  });

  it('the address is counted in any letter case, and never kept in the clear', async () => {
    const { email } = await createUser(t.deps);
    for (let i = 0; i < 4; i++) {
      await t.request
        .post('/v1/auth/password/reset-request')
        .send({ email: i % 2 ? email.toUpperCase() : email })
        .expect(202);
    }
    await t.request.post('/v1/auth/verify/resend').send({ email: email.toUpperCase() }).expect(202);
    await t.request.post('/v1/auth/password/reset-request').send({ email: email.toUpperCase() }).expect(202);
    await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
    await expect.poll(() => mailsTo(t, email).length).toBe(5);
    // The sixth asked is counted (after the answer) and not sent.
    await expect.poll(() => t.deps.hot.get(`mail-budget:${sha256(email)}`)).toBe('6');
    expect(mailsTo(t, email)).toHaveLength(5);
    expect(await t.deps.hot.get(`mail-budget:${email}`)).toBeNull();
  });

  describe('invitations', () => {
    const owner = () => signedInOwner(t, { plan: 'Business' });
    const invite = (cookie: string, email: string) =>
      t.request.post('/v1/members/invites').set('Cookie', cookie).send({ email, role: 'viewer' });

    it('an invitation storm from one workspace: 20 an hour, then 429 with Retry-After', async () => {
      const o = await owner();
      const answers = await Promise.all(Array.from({ length: 25 }, () => invite(o.cookie, uniqueEmail('storm'))));
      expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
      const refused = answers.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(5);
      for (const r of refused) {
        const body = expectProblem(r, 429);
        expect(body.title).toMatch(/20 invitations/);
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(3600);
      }
    });

    it('inviting, withdrawing and inviting one address again: the sixth e-mail in an hour is 429 naming email', async () => {
      const o = await owner();
      const victim = uniqueEmail('victim');
      for (let i = 0; i < 5; i++) {
        const res = await invite(o.cookie, victim).expect(201);
        await t.request.delete(`/v1/members/invites/${res.body.invite.id}`).set('Cookie', o.cookie).expect(204);
      }
      const sixth = await invite(o.cookie, victim);
      const body = expectProblem(sixth, 429);
      expect(body.field).toBe('email');
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
      expect(mailsTo(t, victim)).toHaveLength(5);
      // The refused invitation holds no seat.
      const members = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
      expect(members.body.invites ?? []).toEqual([]);
    });

    // The defect: an invitation that never went (its address's budget spent, or the mail server refusing it) still
    // spent one of the workspace's 20 an hour, so refusals it could not help locked it out of inviting for an hour.
    it("an invitation that is not sent gives the workspace's budget back", async () => {
      const o = await owner();
      const flooded = Array.from({ length: 25 }, () => uniqueEmail('flooded'));
      for (const email of flooded) for (let i = 0; i < 5; i++) await t.deps.hot.incr(`mail-budget:${sha256(email)}`, 3600);
      for (const email of flooded) expectProblem(await invite(o.cookie, email), 429, 'email');
      const bounced = Array.from({ length: 5 }, () => uniqueEmail('bounced'));
      for (const email of bounced) t.smtp.refused.add(email);
      for (const email of bounced) expectProblem(await invite(o.cookie, email), 503);
      for (const email of bounced) t.smtp.refused.delete(email);
      // The mail server is back: the same addresses, and more, are invited; all 20 of the hour are still there.
      const fresh = [...bounced, ...Array.from({ length: 15 }, () => uniqueEmail('fresh'))];
      for (const email of fresh) expect((await invite(o.cookie, email)).status).toBe(201);
      expectProblem(await invite(o.cookie, uniqueEmail('one-more')), 429);
    });

    it('mail another workspace sent counts too: invitations cannot add to a flooded inbox', async () => {
      const { email } = await createUser(t.deps);
      for (let i = 0; i < 5; i++) await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
      const o = await owner();
      expectProblem(await invite(o.cookie, email), 429, 'email');
    });
  });
});
