import { randomUUID } from 'node:crypto';
import { Session } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, sessionCookieOf, sessionSetCookie } from '../../support/auth-helpers.ts';
import { createToken, createUser, GOOD_PASSWORD, signIn, startTestServer, type TestServer } from '../../support/server.ts';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.7339.80 Safari/537.36';
const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:131.0) Gecko/20100101 Firefox/131.0';

interface SessionOut {
  id: string;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
}

describe('Auth: sessions', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  async function signInFrom(email: string, ip: string, userAgent: string) {
    const res = await t.request
      .post('/v1/auth/login')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', userAgent)
      .send({ email, password: GOOD_PASSWORD })
      .expect(200);
    return sessionCookieOf(res);
  }

  const list = async (cookie: string): Promise<SessionOut[]> =>
    (await t.request.get('/v1/auth/sessions').set('Cookie', cookie).expect(200)).body.sessions;

  describe('GET /v1/auth/sessions (person)', () => {
    it('lists the sessions with the current one flagged, a coarse network and a browser summary', async () => {
      const { email } = await createUser(t.deps);
      const first = await signInFrom(email, '203.0.113.57', CHROME_LINUX);
      const second = await signInFrom(email, '2001:db8:1234:5678::42', FIREFOX_MAC);

      const sessions = await list(second);
      expect(sessions).toHaveLength(2);
      const current = sessions.find((s) => s.current);
      const other = sessions.find((s) => !s.current);
      expect(sessions.filter((s) => s.current)).toHaveLength(1);

      expect(current).toMatchObject({ ip: '2001:db8:1234::/48', userAgent: 'Firefox 131 on macOS' });
      expect(other).toMatchObject({ ip: '203.0.113.0/24', userAgent: 'Chrome 140 on Linux' });
      for (const s of sessions) {
        expect(Object.keys(s).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastSeenAt', 'userAgent']);
        expect(JSON.stringify(s)).not.toContain('203.0.113.57');
        expect(JSON.stringify(s)).not.toContain('5678');
        expect(s.userAgent).not.toContain('Mozilla');
        expect(Number.isNaN(Date.parse(s.createdAt))).toBe(false);
        const days = (Date.parse(s.expiresAt) - Date.parse(s.createdAt)) / 86_400_000;
        expect(days).toBeCloseTo(30, 1);
      }

      // The flag follows the cookie that asks.
      const fromFirst = await list(first);
      expect(fromFirst.find((s) => s.current)?.id).toBe(other?.id);
    });

    it('shows only the caller’s own sessions', async () => {
      const a = await createUser(t.deps);
      const b = await createUser(t.deps);
      const cookieA = await signIn(t, a.email);
      await signIn(t, b.email);
      const sessions = await list(cookieA);
      expect(sessions).toHaveLength(1);
      const own = await t.deps.orm.em.fork().find(Session, { user: a.user.id });
      expect(sessions.map((s) => s.id)).toEqual(own.map((s) => s.id));
    });

    it('is refused to an API token (403) and without credentials (401)', async () => {
      const { user, workspace } = await createUser(t.deps);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['account:admin'] });
      expectProblem(await t.request.get('/v1/auth/sessions').set('Authorization', `Bearer ${token}`), 403);
      expectProblem(await t.request.get('/v1/auth/sessions'), 401);
    });
  });

  describe('DELETE /v1/auth/sessions/{id} (person)', () => {
    it('ends another of the caller’s sessions (204): its cookie then gets 401', async () => {
      const { email } = await createUser(t.deps);
      const keep = await signIn(t, email);
      const drop = await signIn(t, email);
      const target = (await list(keep)).find((s) => !s.current)!;

      const res = await t.request.delete(`/v1/auth/sessions/${target.id}`).set('Cookie', keep).expect(204);
      expect(res.text).toBe('');
      expect(sessionSetCookie(res)).toBeUndefined();
      expectProblem(await t.request.get('/v1/me').set('Cookie', drop), 401);
      await t.request.get('/v1/me').set('Cookie', keep).expect(200);
      expect((await list(keep)).map((s) => s.id)).not.toContain(target.id);
    });

    it('ending the current session also clears its cookie', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const [current] = await list(cookie);
      const res = await t.request.delete(`/v1/auth/sessions/${current!.id}`).set('Cookie', cookie).expect(204);
      expect(sessionSetCookie(res)?.split(';')[0]).toBe('us_session=');
      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie), 401);
    });

    it('answers 404 for someone else’s session and leaves it alive', async () => {
      const me = await createUser(t.deps);
      const them = await createUser(t.deps);
      const mine = await signIn(t, me.email);
      const theirs = await signIn(t, them.email);
      const [theirSession] = await list(theirs);
      expectProblem(await t.request.delete(`/v1/auth/sessions/${theirSession!.id}`).set('Cookie', mine), 404);
      await t.request.get('/v1/me').set('Cookie', theirs).expect(200);
    });

    it('answers 404 for an unknown id, a malformed id and an already ended session', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const other = await signIn(t, email);
      expectProblem(await t.request.delete(`/v1/auth/sessions/${randomUUID()}`).set('Cookie', cookie), 404);
      expectProblem(await t.request.delete('/v1/auth/sessions/not-a-session-id').set('Cookie', cookie), 404);
      // 36 characters of a uuid's alphabet that are no uuid reached PostgreSQL as one (500).
      expectProblem(await t.request.delete(`/v1/auth/sessions/${'-'.repeat(36)}`).set('Cookie', cookie), 404);
      expectProblem(await t.request.delete(`/v1/auth/sessions/${'a'.repeat(36)}`).set('Cookie', cookie), 404);
      // A malformed percent-escape in the path is just another unknown id, never a 500.
      expectProblem(await t.request.delete('/v1/auth/sessions/%E0%A4%A').set('Cookie', cookie), 404);

      const target = (await list(cookie)).find((s) => !s.current)!;
      await t.request.delete(`/v1/auth/sessions/${target.id}`).set('Cookie', cookie).expect(204);
      expectProblem(await t.request.delete(`/v1/auth/sessions/${target.id}`).set('Cookie', cookie), 404);
      expectProblem(await t.request.get('/v1/me').set('Cookie', other), 401);
    });

    it('is refused to an API token (403)', async () => {
      const { user, workspace, email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const [s] = await list(cookie);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['account:admin'] });
      expectProblem(await t.request.delete(`/v1/auth/sessions/${s!.id}`).set('Authorization', `Bearer ${token}`), 403);
      await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
    });
  });

  it('an expired session is refused (401) and no longer listed', async () => {
    const { user, email } = await createUser(t.deps);
    const keep = await signIn(t, email);
    const old = await signIn(t, email);
    const em = t.deps.orm.em.fork();
    const current = (await list(keep)).find((s) => s.current)!;
    await em.nativeUpdate(Session, { user: user.id, id: { $ne: current.id } }, { expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await t.request.get('/v1/me').set('Cookie', old), 401);
    expect((await list(keep)).map((s) => s.id)).toEqual([current.id]);
  });
});
