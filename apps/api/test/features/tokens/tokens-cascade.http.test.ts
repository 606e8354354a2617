import { ApiToken, Membership } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpCredentialsGeneration, watchTokenEnds } from '../../../src/actor/token-cache.ts';
import { issueToken } from '../../../src/features/tokens/issue.ts';
import { revokeMemberTokens, revokeTokensBeyondRole } from '../../../src/features/tokens/revocation.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';

describe('API token revocation cascades', () => {
  /** As an operation runs it: the revocation, then (having revoked any) every node's token cache told. */
  async function asOperation<T>(fn: () => Promise<T>): Promise<T> {
    const { result, ended } = await watchTokenEnds(fn);
    if (ended) await bumpCredentialsGeneration(t.deps.hot);
    return result;
  }

  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const bearer = (token: string) => `Bearer ${token}`;
  const live = (token: string) => t.request.get('/v1/me').set('Authorization', bearer(token)).expect(200);
  const dead = async (token: string) => expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(token)), 401);
  const rows = (ids: string[]) => t.deps.orm.em.fork().find(ApiToken, { id: { $in: ids } });

  /** POST /v1/tokens as `auth` (a Cookie or a bearer secret). */
  async function make(auth: { cookie?: string; token?: string }, scopes: string[], name = 'made') {
    const req = t.request.post('/v1/tokens');
    if (auth.cookie) req.set('Cookie', auth.cookie);
    if (auth.token) req.set('Authorization', bearer(auth.token));
    const res = await req.send({ name, scopes }).expect(201);
    return { id: res.body.id as string, token: res.body.token as string, body: res.body };
  }

  it('person → A → B → C: deleting A revokes B and C at once; an unrelated token keeps working', async () => {
    const o = await createUser(t.deps);
    const cookie = await signIn(t, o.email);
    const all = ['tokens:read', 'tokens:write', 'sites:read'];
    const a = await make({ cookie }, all, 'A');
    const b = await make({ token: a.token }, all, 'B');
    const c = await make({ token: b.token }, ['tokens:write', 'sites:read'], 'C');
    const unrelated = await make({ cookie }, all, 'unrelated');
    for (const x of [a, b, c]) expect(x.body.createdBy).toBe(o.user.id);
    const [rowA, rowB, rowC] = await Promise.all(
      [a, b, c].map((x) => t.deps.orm.em.fork().findOneOrFail(ApiToken, { id: x.id })),
    );
    expect(rowA?.parentToken).toBeNull();
    expect(rowB?.parentToken).toBe(a.id);
    expect(rowC?.parentToken).toBe(b.id);
    for (const x of [a, b, c, unrelated]) await live(x.token);

    await t.request.delete(`/v1/tokens/${a.id}`).set('Cookie', cookie).expect(204);
    for (const x of [a, b, c]) await dead(x.token);
    await live(unrelated.token);

    const revoked = await rows([a.id, b.id, c.id]);
    const stamps = new Set(revoked.map((r) => r.revokedAt?.toISOString()));
    expect(stamps.size).toBe(1);
    expect([...stamps][0]).toBeDefined();

    const list = await t.request.get('/v1/tokens').set('Cookie', cookie).expect(200);
    expect(list.body.tokens.map((e: { id: string }) => e.id)).toEqual([unrelated.id]);
  });

  it('revoking a token in the middle revokes what it made, not what made it', async () => {
    const o = await createUser(t.deps);
    const cookie = await signIn(t, o.email);
    const all = ['tokens:write', 'sites:read'];
    const a = await make({ cookie }, all, 'A');
    const b = await make({ token: a.token }, all, 'B');
    const c = await make({ token: b.token }, all, 'C');
    // B deletes itself: C goes with it, A stays.
    await t.request.delete(`/v1/tokens/${b.id}`).set('Authorization', bearer(b.token)).expect(204);
    await dead(b.token);
    await dead(c.token);
    await live(a.token);
  });

  it('a token made by a token cannot outrank it, so it cannot revoke its maker without holding every scope', async () => {
    const o = await createUser(t.deps);
    const cookie = await signIn(t, o.email);
    const a = await make({ cookie }, ['tokens:write', 'sites:read', 'sites:write'], 'A');
    const b = await make({ token: a.token }, ['tokens:write', 'sites:read'], 'B');
    const res = await t.request.delete(`/v1/tokens/${a.id}`).set('Authorization', bearer(b.token));
    expect(expectProblem(res, 403).title).toMatch(/sites:write/);
    await live(a.token);
  });

  describe('services/token-revocation', () => {
    it('revokeMemberTokens revokes every token the person made in that workspace, and their subtrees', async () => {
      const o = await createUser(t.deps);
      const member = await createUser(t.deps);
      const em = t.deps.orm.em.fork();
      em.create(Membership, { workspace: o.workspace.id, user: member.user.id, role: 'admin' });
      await em.flush();

      const ws = o.workspace.id;
      const m1 = await createToken(t.deps, { userId: member.user.id, workspaceId: ws, scopes: ['sites:read'] });
      const m2 = await createToken(t.deps, { userId: member.user.id, workspaceId: ws, scopes: ['tokens:write', 'sites:read'] });
      // A token m2 made (as POST /v1/tokens would record it).
      const child = await issueToken(t.deps.orm.em.fork(), {
        workspaceId: ws,
        createdBy: member.user.id,
        parentToken: m2.id,
        name: 'child',
        scopes: ['sites:read'],
      });
      const ownersToken = await createToken(t.deps, { userId: o.user.id, workspaceId: ws, scopes: ['sites:read'] });
      const elsewhere = await createToken(t.deps, {
        userId: member.user.id,
        workspaceId: member.workspace.id,
        scopes: ['sites:read'],
      });
      const already = await createToken(t.deps, { userId: member.user.id, workspaceId: ws, scopes: ['sites:read'] });
      await t.request.delete(`/v1/tokens/${already.id}`).set('Authorization', bearer(m2.token)).expect(204);

      const n = await asOperation(() => revokeMemberTokens(t.deps.orm.em.fork(), ws, member.user.id));
      expect(n).toBe(3);
      for (const x of [m1.token, m2.token, child.secret]) await dead(x);
      await live(ownersToken.token);
      await live(elsewhere.token);
      expect(await asOperation(() => revokeMemberTokens(t.deps.orm.em.fork(), ws, member.user.id))).toBe(0);
    });

    it('revokeTokensBeyondRole revokes only the tokens holding a scope the new role lacks (and what they made)', async () => {
      const o = await createUser(t.deps);
      const person = await createUser(t.deps);
      const ws = o.workspace.id;
      const em = t.deps.orm.em.fork();
      em.create(Membership, { workspace: ws, user: person.user.id, role: 'admin' });
      await em.flush();

      const reader = await createToken(t.deps, {
        userId: person.user.id,
        workspaceId: ws,
        scopes: ['analytics:read', 'sites:read'],
      });
      const writer = await createToken(t.deps, { userId: person.user.id, workspaceId: ws, scopes: ['sites:write', 'bot:write'] });
      const admin = await createToken(t.deps, {
        userId: person.user.id,
        workspaceId: ws,
        scopes: ['tokens:write', 'members:write', 'sites:read'],
      });
      // Made by the admin token, holding only scopes a member keeps: revoked with its maker all the same.
      const child = await make({ token: admin.token }, ['sites:read'], 'child');
      const ownersToken = await createToken(t.deps, { userId: o.user.id, workspaceId: ws, scopes: ['members:write'] });

      // Demoted to member: members:write and tokens:write are beyond it; sites:write and bot:write are not.
      const n = await asOperation(() => revokeTokensBeyondRole(t.deps.orm.em.fork(), ws, person.user.id, 'member'));
      expect(n).toBe(2);
      await dead(admin.token);
      await dead(child.token);
      await live(reader.token);
      await live(writer.token);
      await live(ownersToken.token);

      // Further down to viewer: the writer goes too, the reader stays.
      expect(await asOperation(() => revokeTokensBeyondRole(t.deps.orm.em.fork(), ws, person.user.id, 'viewer'))).toBe(1);
      await dead(writer.token);
      await live(reader.token);
    });
  });
});
