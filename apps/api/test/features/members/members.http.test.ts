import { ApiToken, Membership, User } from '@us/db';
import type { Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, joinAs, signedInOwner, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('Members: GET /v1/members, PATCH and DELETE /v1/members/{userId}', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** An owner of a new workspace, signed in. */
  const owner = () => signedInOwner(t, { workspaceName: 'Team' });

  const as = (cookie: string, workspaceId: string) => ({
    patch: (userId: string, body: Record<string, unknown>) =>
      t.request.patch(`/v1/members/${userId}`).set('Cookie', cookie).set('X-Workspace', workspaceId).send(body),
    remove: (userId: string) => t.request.delete(`/v1/members/${userId}`).set('Cookie', cookie).set('X-Workspace', workspaceId),
    list: () => t.request.get('/v1/members').set('Cookie', cookie).set('X-Workspace', workspaceId),
  });

  const bearer = (token: string) => `Bearer ${token}`;

  /** True when the token still works on /v1/me (false: 401). */
  async function works(token: string): Promise<boolean> {
    const res = await t.request.get('/v1/me').set('Authorization', bearer(token));
    if (res.status === 401) return false;
    expect(res.status).toBe(200);
    return true;
  }

  async function roleOf(workspaceId: string, userId: string) {
    const m = await t.deps.orm.em.fork().findOne(Membership, { workspace: workspaceId, user: userId });
    return m?.role ?? null;
  }

  describe('GET /v1/members', () => {
    it('lists members (oldest first) with their e-mail, role, two-factor state and join time', async () => {
      const o = await owner();
      const admin = await joinAs(t, o.workspace.id, 'admin');
      await t.deps.orm.em.fork().nativeUpdate(User, { id: admin.user.id }, { twoFactorEnabledAt: new Date() });
      const viewer = await joinAs(t, o.workspace.id, 'viewer');
      const res = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
      expect(res.body).toEqual({
        members: [
          { userId: o.user.id, email: o.email, role: 'owner', twoFactor: false, joinedAt: expect.any(String) },
          { userId: admin.user.id, email: admin.email, role: 'admin', twoFactor: true, joinedAt: expect.any(String) },
          { userId: viewer.user.id, email: viewer.email, role: 'viewer', twoFactor: false, joinedAt: expect.any(String) },
        ],
        invites: [],
      });
      expect(Number.isNaN(Date.parse(res.body.members[0].joinedAt))).toBe(false);
      expect(JSON.stringify(res.body)).not.toMatch(/passwordHash|totp/i);
    });

    it('needs members:read: a viewer gets 403; a members:read token (even site-restricted) may list', async () => {
      const o = await owner();
      const viewer = await joinAs(t, o.workspace.id, 'viewer');
      expect(expectProblem(await as(viewer.cookie, o.workspace.id).list(), 403).title).toContain('members:read');
      const em = t.deps.orm.em.fork();
      const { site } = await createSite(em, { workspace: o.workspace.id, name: 'S' });
      await em.flush();
      const { token } = await createToken(t.deps, {
        userId: o.user.id,
        workspaceId: o.workspace.id,
        scopes: ['members:read'],
        siteIds: [site.id],
      });
      const res = await t.request.get('/v1/members').set('Authorization', bearer(token)).expect(200);
      expect(res.body.members).toHaveLength(2);
    });
  });

  describe('PATCH /v1/members/{userId}', () => {
    it('changes a role and answers the Member', async () => {
      const o = await owner();
      const m = await joinAs(t, o.workspace.id, 'viewer');
      const res = await as(o.cookie, o.workspace.id).patch(m.user.id, { role: 'admin' }).expect(200);
      expect(res.body).toEqual({
        userId: m.user.id,
        email: m.email,
        role: 'admin',
        twoFactor: false,
        joinedAt: expect.any(String),
      });
      expect(await roleOf(o.workspace.id, m.user.id)).toBe('admin');
      // The new role's scopes apply on the person's next request.
      const me = await t.request.get('/v1/me').set('Cookie', m.cookie).set('X-Workspace', o.workspace.id).expect(200);
      expect(me.body.role).toBe('admin');
    });

    it('only an owner makes an owner: an admin gets 403 naming why; the owner may', async () => {
      const o = await owner();
      const admin = await joinAs(t, o.workspace.id, 'admin');
      const m = await joinAs(t, o.workspace.id, 'member');
      const p = expectProblem(await as(admin.cookie, o.workspace.id).patch(m.user.id, { role: 'owner' }), 403);
      expect(p.title).toMatch(/owner/i);
      // An admin cannot promote themselves either.
      expectProblem(await as(admin.cookie, o.workspace.id).patch(admin.user.id, { role: 'owner' }), 403);
      expect(await roleOf(o.workspace.id, m.user.id)).toBe('member');

      const res = await as(o.cookie, o.workspace.id).patch(m.user.id, { role: 'owner' }).expect(200);
      expect(res.body.role).toBe('owner');
    });

    it('only an owner changes an owner’s role (403 for an admin)', async () => {
      const o = await owner();
      const second = await joinAs(t, o.workspace.id, 'owner');
      const admin = await joinAs(t, o.workspace.id, 'admin');
      expectProblem(await as(admin.cookie, o.workspace.id).patch(second.user.id, { role: 'viewer' }), 403);
      expect(await roleOf(o.workspace.id, second.user.id)).toBe('owner');
      // With two owners, one owner may demote the other.
      await as(second.cookie, o.workspace.id).patch(o.user.id, { role: 'admin' }).expect(200);
      expect(await roleOf(o.workspace.id, o.user.id)).toBe('admin');
    });

    it('refuses to demote the last owner (409, says to make another owner first), even themselves', async () => {
      const o = await owner();
      const p = expectProblem(await as(o.cookie, o.workspace.id).patch(o.user.id, { role: 'admin' }), 409);
      expect(p.title).toMatch(/another.*owner first/i);
      expect(await roleOf(o.workspace.id, o.user.id)).toBe('owner');
      // Keeping the role is no change and allowed.
      await as(o.cookie, o.workspace.id).patch(o.user.id, { role: 'owner' }).expect(200);
    });

    it('a token needs account:admin to make an owner; members:write alone gets 403', async () => {
      const o = await owner();
      const m = await joinAs(t, o.workspace.id, 'member');
      const plain = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
      expectProblem(
        await t.request.patch(`/v1/members/${m.user.id}`).set('Authorization', bearer(plain.token)).send({ role: 'owner' }),
        403,
      );
      const admin = await createToken(t.deps, {
        userId: o.user.id,
        workspaceId: o.workspace.id,
        scopes: ['members:write', 'account:admin'],
      });
      await t.request
        .patch(`/v1/members/${m.user.id}`)
        .set('Authorization', bearer(admin.token))
        .send({ role: 'owner' })
        .expect(200);
      expect(await roleOf(o.workspace.id, m.user.id)).toBe('owner');
    });

    it('revokes at once exactly the tokens the person made here with scopes the new role lacks', async () => {
      const o = await owner();
      const a = await joinAs(t, o.workspace.id, 'admin');
      const make = (scopes: Scope[], userId = a.user.id, workspaceId = o.workspace.id) =>
        createToken(t.deps, { userId, workspaceId, scopes });
      const membersWrite = await make(['members:read', 'members:write']);
      const tokensRead = await make(['tokens:read']);
      const sitesWrite = await make(['sites:write', 'analytics:read']);
      const readOnly = await make(['analytics:read', 'sites:read']);
      const ownersToken = await make(['members:write'], o.user.id);
      const elsewhere = await make(['members:write'], a.user.id, a.workspace.id);

      await as(o.cookie, o.workspace.id).patch(a.user.id, { role: 'member' }).expect(200);
      expect(await works(membersWrite.token)).toBe(false);
      expect(await works(tokensRead.token)).toBe(true); // every :read scope is in the member role
      expect(await works(sitesWrite.token)).toBe(true);
      expect(await works(readOnly.token)).toBe(true);
      expect(await works(ownersToken.token)).toBe(true);
      expect(await works(elsewhere.token)).toBe(true);

      await as(o.cookie, o.workspace.id).patch(a.user.id, { role: 'viewer' }).expect(200);
      expect(await works(tokensRead.token)).toBe(false);
      expect(await works(sitesWrite.token)).toBe(false);
      expect(await works(readOnly.token)).toBe(true);
      expect(await works(ownersToken.token)).toBe(true);
      expect(await works(elsewhere.token)).toBe(true);
    });

    it('is 404 for an unknown, malformed or other workspace’s member, and 400 for a bad role', async () => {
      const o = await owner();
      const other = await owner();
      const api = as(o.cookie, o.workspace.id);
      expectProblem(await api.patch(other.user.id, { role: 'viewer' }), 404);
      expect(await roleOf(other.workspace.id, other.user.id)).toBe('owner');
      expectProblem(await api.patch('00000000-0000-4000-8000-000000000000', { role: 'viewer' }), 404);
      expectProblem(await api.patch('nope', { role: 'viewer' }), 404);
      expectProblem(await api.patch(o.user.id, { role: 'superuser' }), 400, 'role');
      expectProblem(await api.patch(o.user.id, {}), 400, 'role');
      expectProblem(await api.patch(o.user.id, { role: 'owner', extra: 1 }), 400, 'extra');
    });

    it('needs members:write and refuses site-restricted tokens (403)', async () => {
      const o = await owner();
      const m = await joinAs(t, o.workspace.id, 'member');
      const v = await joinAs(t, o.workspace.id, 'viewer');
      expect(expectProblem(await as(m.cookie, o.workspace.id).patch(v.user.id, { role: 'admin' }), 403).title).toContain(
        'members:write',
      );
      const em = t.deps.orm.em.fork();
      const { site } = await createSite(em, { workspace: o.workspace.id, name: 'S' });
      await em.flush();
      const restricted = await createToken(t.deps, {
        userId: o.user.id,
        workspaceId: o.workspace.id,
        scopes: ['members:write'],
        siteIds: [site.id],
      });
      expectProblem(
        await t.request.patch(`/v1/members/${v.user.id}`).set('Authorization', bearer(restricted.token)).send({ role: 'admin' }),
        403,
      );
      expect(await roleOf(o.workspace.id, v.user.id)).toBe('viewer');
    });
  });

  describe('DELETE /v1/members/{userId}', () => {
    it('removes a member (204) and revokes every token they made here, nobody else’s', async () => {
      const o = await owner();
      const a = await joinAs(t, o.workspace.id, 'admin');
      const t1 = await createToken(t.deps, { userId: a.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
      const t2 = await createToken(t.deps, { userId: a.user.id, workspaceId: o.workspace.id, scopes: ['analytics:read'] });
      const own = await createToken(t.deps, { userId: a.user.id, workspaceId: a.workspace.id, scopes: ['analytics:read'] });
      const ownerToken = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:read'] });

      const res = await as(o.cookie, o.workspace.id).remove(a.user.id).expect(204);
      expect(res.text).toBe('');
      expect(await roleOf(o.workspace.id, a.user.id)).toBeNull();
      expect(await works(t1.token)).toBe(false);
      expect(await works(t2.token)).toBe(false);
      expect(await works(own.token)).toBe(true);
      expect(await works(ownerToken.token)).toBe(true);
      const rows = await t.deps.orm.em.fork().find(ApiToken, { id: { $in: [t1.id, t2.id] } });
      expect(rows.every((r) => r.revokedAt instanceof Date)).toBe(true);

      const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
      expect(list.body.members.map((m: { userId: string }) => m.userId)).toEqual([o.user.id]);
      // The removed person no longer reaches the workspace.
      expectProblem(await t.request.get('/v1/me').set('Cookie', a.cookie).set('X-Workspace', o.workspace.id), 404);
      // Removing again: 404.
      expectProblem(await as(o.cookie, o.workspace.id).remove(a.user.id), 404);
    });

    it('lets a viewer leave without members:write, revoking their tokens; but not remove others (403)', async () => {
      const o = await owner();
      const v = await joinAs(t, o.workspace.id, 'viewer');
      const m = await joinAs(t, o.workspace.id, 'member');
      const vt = await createToken(t.deps, { userId: v.user.id, workspaceId: o.workspace.id, scopes: ['analytics:read'] });
      const r = expectProblem(await as(v.cookie, o.workspace.id).remove(m.user.id), 403);
      expect(r.title).toContain('members:write');
      expect(await roleOf(o.workspace.id, m.user.id)).toBe('member');

      await as(v.cookie, o.workspace.id).remove(v.user.id).expect(204);
      expect(await roleOf(o.workspace.id, v.user.id)).toBeNull();
      expect(await works(vt.token)).toBe(false);
      const me = await t.request.get('/v1/me').set('Cookie', v.cookie).expect(200);
      expect(me.body.memberships.map((x: { workspaceId: string }) => x.workspaceId)).toEqual([v.workspace.id]);
    });

    it('the last owner can neither leave nor be removed (409); with a second owner they can leave', async () => {
      const o = await owner();
      const p = expectProblem(await as(o.cookie, o.workspace.id).remove(o.user.id), 409);
      expect(p.title).toMatch(/another.*owner first/i);
      const tok = await createToken(t.deps, {
        userId: o.user.id,
        workspaceId: o.workspace.id,
        scopes: ['members:write', 'account:admin'],
      });
      expectProblem(await t.request.delete(`/v1/members/${o.user.id}`).set('Authorization', bearer(tok.token)), 409);
      expect(await roleOf(o.workspace.id, o.user.id)).toBe('owner');
      expect(await works(tok.token)).toBe(true);

      const second = await joinAs(t, o.workspace.id, 'owner');
      await as(o.cookie, o.workspace.id).remove(o.user.id).expect(204);
      expect(await roleOf(o.workspace.id, o.user.id)).toBeNull();
      expect(await works(tok.token)).toBe(false);
      expectProblem(await as(second.cookie, o.workspace.id).remove(second.user.id), 409);
    });

    it('only an owner removes an owner: an admin gets 403, another owner may', async () => {
      const o = await owner();
      const second = await joinAs(t, o.workspace.id, 'owner');
      const admin = await joinAs(t, o.workspace.id, 'admin');
      const p = expectProblem(await as(admin.cookie, o.workspace.id).remove(second.user.id), 403);
      expect(p.title).toMatch(/owner/i);
      expect(await roleOf(o.workspace.id, second.user.id)).toBe('owner');
      await as(o.cookie, o.workspace.id).remove(second.user.id).expect(204);
      // An admin may remove a member, and leave.
      const m = await joinAs(t, o.workspace.id, 'member');
      await as(admin.cookie, o.workspace.id).remove(m.user.id).expect(204);
      await as(admin.cookie, o.workspace.id).remove(admin.user.id).expect(204);
    });

    it('a token needs members:write even to remove its own maker', async () => {
      const o = await owner();
      const a = await joinAs(t, o.workspace.id, 'admin');
      const readOnly = await createToken(t.deps, { userId: a.user.id, workspaceId: o.workspace.id, scopes: ['members:read'] });
      expect(
        expectProblem(await t.request.delete(`/v1/members/${a.user.id}`).set('Authorization', bearer(readOnly.token)), 403).title,
      ).toContain('members:write');
      const writer = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
      await t.request.delete(`/v1/members/${a.user.id}`).set('Authorization', bearer(writer.token)).expect(204);
    });

    it('is 404 for an unknown, malformed or other workspace’s member', async () => {
      const o = await owner();
      const other = await owner();
      const otherMember = await joinAs(t, other.workspace.id, 'viewer');
      const api = as(o.cookie, o.workspace.id);
      expectProblem(await api.remove(otherMember.user.id), 404);
      expectProblem(await api.remove(other.user.id), 404);
      expect(await roleOf(other.workspace.id, otherMember.user.id)).toBe('viewer');
      expectProblem(await api.remove('00000000-0000-4000-8000-000000000000'), 404);
      expectProblem(await api.remove('nope'), 404);
      expectProblem(await t.request.delete(`/v1/members/${o.user.id}`), 401);
    });
  });
});
