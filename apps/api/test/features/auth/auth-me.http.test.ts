import { randomUUID } from 'node:crypto';
import { ApiToken, Membership, User, Workspace } from '@us/db';
import { ROLE_SCOPES, SCOPES } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpCredentialsGeneration } from '../../../src/actor/token-cache.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';

describe('GET /v1/me and credentials', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** A second workspace where the user has `role`, joined after their own. */
  async function joinWorkspace(userId: string, role: 'admin' | 'member' | 'viewer', name = 'Joined workspace') {
    const em = t.deps.orm.em.fork();
    const ws = em.create(Workspace, { name });
    em.create(Membership, { workspace: ws, user: userId, role });
    await em.flush();
    return ws;
  }

  describe('as a signed-in person', () => {
    it('describes the person, their role and its scopes in the first workspace, and their memberships', async () => {
      const { user, workspace, email } = await createUser(t.deps, { workspaceName: 'Own workspace' });
      const cookie = await signIn(t, email);
      const res = await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        actor: { type: 'user', id: user.id },
        workspaceId: workspace.id,
        role: 'owner',
        scopes: [...SCOPES],
        siteIds: null,
        user: {
          id: user.id,
          email,
          emailVerified: true,
          twoFactor: false,
          createdAt: expect.any(String),
        },
        memberships: [{ workspaceId: workspace.id, name: 'Own workspace', role: 'owner', plan: 'Free' }],
      });
      expect(Number.isNaN(Date.parse(res.body.user.createdAt))).toBe(false);
      expect(res.body.token).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toMatch(/passwordHash|totp/i);
    });

    it('selects another workspace with X-Workspace or ?workspace=, with that role’s scopes', async () => {
      const { user, workspace, email } = await createUser(t.deps);
      const joined = await joinWorkspace(user.id, 'viewer');
      const cookie = await signIn(t, email);

      const byHeader = await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', joined.id).expect(200);
      expect(byHeader.body).toMatchObject({ workspaceId: joined.id, role: 'viewer' });
      expect([...byHeader.body.scopes].sort()).toEqual([...ROLE_SCOPES.viewer].sort());
      expect(byHeader.body.memberships).toEqual([
        { workspaceId: workspace.id, name: 'Test workspace', role: 'owner', plan: 'Free' },
        { workspaceId: joined.id, name: 'Joined workspace', role: 'viewer', plan: 'Free' },
      ]);

      const byQuery = await t.request.get(`/v1/me?workspace=${joined.id}`).set('Cookie', cookie).expect(200);
      expect(byQuery.body).toMatchObject({ workspaceId: joined.id, role: 'viewer' });
      expect(byQuery.body.scopes).toEqual(byHeader.body.scopes);

      const own = await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', workspace.id).expect(200);
      expect(own.body).toMatchObject({ workspaceId: workspace.id, role: 'owner' });
    });

    it.each(['admin', 'member'] as const)('gives the %s role its scopes', async (role) => {
      const { user, email } = await createUser(t.deps);
      const joined = await joinWorkspace(user.id, role);
      const cookie = await signIn(t, email);
      const res = await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', joined.id).expect(200);
      expect(res.body.role).toBe(role);
      expect([...res.body.scopes].sort()).toEqual([...ROLE_SCOPES[role]].sort());
    });

    it('answers 404 for a workspace the person is not in, an unknown one and a malformed one', async () => {
      const { email } = await createUser(t.deps);
      const stranger = await createUser(t.deps);
      const cookie = await signIn(t, email);
      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', stranger.workspace.id), 404);
      expectProblem(await t.request.get(`/v1/me?workspace=${stranger.workspace.id}`).set('Cookie', cookie), 404);
      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', randomUUID()), 404);
      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', 'my-workspace'), 404);
      // The shape of an id without being one (it reached PostgreSQL's uuid column: 500).
      expectProblem(await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', '-'.repeat(36)), 404);
      expectProblem(await t.request.get(`/v1/me?workspace=${'f'.repeat(36)}`).set('Cookie', cookie), 404);
    });

    it('shows twoFactor true once two-factor sign-in is on', async () => {
      const { user, email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const em = t.deps.orm.em.fork();
      await em.nativeUpdate(User, { id: user.id }, { twoFactorEnabledAt: new Date() });
      const res = await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
      expect(res.body.user.twoFactor).toBe(true);
    });

    it('answers 401 with WWW-Authenticate: Bearer for an unknown session cookie', async () => {
      const res = await t.request.get('/v1/me').set('Cookie', 'us_session=not-a-real-session');
      expectProblem(res, 401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });
  });

  describe('as an API token', () => {
    it('describes the token: actor token, its workspace, its scopes and site restriction, no role', async () => {
      const { user, workspace } = await createUser(t.deps);
      const expiresAt = new Date(Date.now() + 7 * 86_400_000);
      const siteIds = [randomUUID(), randomUUID()];
      const { token, id } = await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['analytics:read', 'sites:read'],
        siteIds,
        expiresAt,
        name: 'CI reporting',
      });
      const res = await t.request.get('/v1/me').set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body).toEqual({
        actor: { type: 'token', id },
        workspaceId: workspace.id,
        role: null,
        scopes: ['analytics:read', 'sites:read'],
        siteIds,
        token: { id, name: 'CI reporting', expiresAt: expiresAt.toISOString() },
      });
      expect(res.body.user).toBeUndefined();
      expect(res.body.memberships).toBeUndefined();
    });

    it('shows null siteIds and expiresAt for an unrestricted token without expiry', async () => {
      const { user, workspace } = await createUser(t.deps);
      const { token, id } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      const res = await t.request.get('/v1/me').set('Authorization', `bearer ${token}`).expect(200);
      expect(res.body).toMatchObject({ siteIds: null, token: { id, name: 'test token', expiresAt: null } });
    });

    it('ignores X-Workspace: a token works in its own workspace', async () => {
      const { user, workspace } = await createUser(t.deps);
      const other = await createUser(t.deps);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      const res = await t.request
        .get('/v1/me')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Workspace', other.workspace.id)
        .expect(200);
      expect(res.body.workspaceId).toBe(workspace.id);
    });

    it('wins over a session cookie sent alongside it', async () => {
      const { user, workspace, email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const { token, id } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      const res = await t.request.get('/v1/me').set('Cookie', cookie).set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body.actor).toEqual({ type: 'token', id });
    });

    it('records when the token was last used', async () => {
      const { user, workspace } = await createUser(t.deps);
      const { token, id } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      await t.request.get('/v1/me').set('Authorization', `Bearer ${token}`).expect(200);
      const row = await t.deps.orm.em.fork().findOneOrFail(ApiToken, { id });
      expect(row.lastUsedAt).toBeInstanceOf(Date);
    });

    it('answers 401 with WWW-Authenticate: Bearer for revoked, expired and unknown tokens', async () => {
      const { user, workspace } = await createUser(t.deps);
      const revoked = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
      await t.request.get('/v1/me').set('Authorization', `Bearer ${revoked.token}`).expect(200);
      await t.deps.orm.em.fork().nativeUpdate(ApiToken, { id: revoked.id }, { revokedAt: new Date() });
      // Revoked outside the service (by SQL): that change tells the nodes' token caches itself.
      await bumpCredentialsGeneration(t.deps.hot);
      const expired = await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['sites:read'],
        expiresAt: new Date(Date.now() - 1000),
      });

      for (const token of [revoked.token, expired.token, 'ust_this-token-was-never-issued']) {
        const res = await t.request.get('/v1/me').set('Authorization', `Bearer ${token}`);
        expectProblem(res, 401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'Token abc', 'ust_no-scheme'])(
      'answers 401 for the malformed Authorization %j, even with a valid session cookie',
      async (header) => {
        const { email } = await createUser(t.deps);
        const cookie = await signIn(t, email);
        const res = await t.request.get('/v1/me').set('Cookie', cookie).set('Authorization', header);
        expectProblem(res, 401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      },
    );
  });

  it('answers 401 with WWW-Authenticate: Bearer without credentials', async () => {
    const res = await t.request.get('/v1/me');
    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
