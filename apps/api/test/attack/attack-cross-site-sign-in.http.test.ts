import { User } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, mailsTo, sessionSetCookie, uniqueIp } from '../support/auth-helpers.ts';
import { createUser, GOOD_PASSWORD, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';

const EVIL = 'https://evil.example';

/**
 * A page on another site makes the visitor's browser post to the auth routes that need no credentials:
 * signing the victim into the attacker's account (login CSRF), starting sign-ups or resets in their
 * name. Those routes refuse a foreign Origin or `Sec-Fetch-Site: cross-site`; without an Origin (curl,
 * SDKs) they answer as before.
 */
describe('attack: cross-site requests to the sign-in routes', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const routes: [string, () => Record<string, unknown>][] = [
    ['/v1/auth/signup', () => ({ email: uniqueEmail('xs-signup'), password: GOOD_PASSWORD })],
    ['/v1/auth/login', () => ({ email: uniqueEmail('xs-login'), password: GOOD_PASSWORD })],
    ['/v1/auth/login/2fa', () => ({ challenge: 'some-challenge', code: '123456' })],
    ['/v1/auth/verify', () => ({ token: 'some-token', password: GOOD_PASSWORD })],
    ['/v1/auth/verify/resend', () => ({ email: uniqueEmail('xs-resend') })],
    ['/v1/auth/password/reset-request', () => ({ email: uniqueEmail('xs-reset') })],
    ['/v1/auth/password/reset', () => ({ token: 'some-token', password: 'amber-lantern-orchard-58' })],
  ];

  for (const [path, body] of routes) {
    it(`POST ${path} from a foreign Origin or marked cross-site is 403`, async () => {
      expectProblem(await t.request.post(path).set('X-Forwarded-For', uniqueIp()).set('Origin', EVIL).send(body()), 403);
      expectProblem(
        await t.request.post(path).set('X-Forwarded-For', uniqueIp()).set('Sec-Fetch-Site', 'cross-site').send(body()),
        403,
      );
    });
  }

  it('a cross-site login sets no cookie, even with the right password', async () => {
    const { email } = await createUser(t.deps);
    const res = await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .set('Origin', EVIL)
      .send({ email, password: GOOD_PASSWORD });
    expectProblem(res, 403);
    expect(sessionSetCookie(res)).toBeUndefined();
  });

  it('a cross-site sign-up creates no account and sends no e-mail', async () => {
    const email = uniqueEmail('xs-none');
    expectProblem(await t.request.post('/v1/auth/signup').set('Origin', EVIL).send({ email, password: GOOD_PASSWORD }), 403);
    expect(await t.deps.orm.em.fork().count(User, { email })).toBe(0);
    expect(mailsTo(t, email)).toEqual([]);
  });

  it('a cross-site login over the SPA face (tRPC) is 403 too', async () => {
    const { email } = await createUser(t.deps);
    const res = await t.request.post('/trpc/auth.login').set('Origin', EVIL).send({ email, password: GOOD_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.error.data.problem).toMatchObject({ status: 403 });
    expect(sessionSetCookie(res)).toBeUndefined();
    const signup = await t.request
      .post('/trpc/auth.signup')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: uniqueEmail(), password: GOOD_PASSWORD });
    expect(signup.status).toBe(403);
  });

  it('the service’s own Origin, same-site fetches and requests without an Origin still sign in', async () => {
    const { email } = await createUser(t.deps);
    const own = await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .set('Origin', t.url)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ email, password: GOOD_PASSWORD })
      .expect(200);
    expect(sessionSetCookie(own)).toBeDefined();
    await t.request.post('/trpc/auth.login').set('Origin', t.url).send({ email, password: GOOD_PASSWORD }).expect(200);
    await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', uniqueIp())
      .send({ email, password: GOOD_PASSWORD })
      .expect(200);
    await t.request.post('/v1/auth/verify/resend').set('Sec-Fetch-Site', 'same-site').send({ email }).expect(202);
  });
});
