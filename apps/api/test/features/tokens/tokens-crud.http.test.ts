import { createHash, randomUUID } from 'node:crypto';
import { ApiToken, Membership, Workspace } from '@us/db';
import { SCOPES, type Scope, TOKEN_LIMITS } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpCredentialsGeneration } from '../../../src/actor/token-cache.ts';
import { expectProblem, expectProblemCode } from '../../support/auth-helpers.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken, joinAs, signedInOwner, startTestServer, type TestServer } from '../../support/server.ts';

describe('API tokens: list, create, delete', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const bearer = (token: string) => `Bearer ${token}`;

  /** An owner signed in, and their cookie. */
  const owner = () => signedInOwner(t);

  /** A token made straight through the service, for callers of the routes under test. */
  async function tokenFor(u: { user: { id: string }; workspace: { id: string } }, scopes: Scope[], extra = {}) {
    return createToken(t.deps, { userId: u.user.id, workspaceId: u.workspace.id, scopes, ...extra });
  }

  async function rowOf(id: string) {
    return t.deps.orm.em.fork().findOneOrFail(ApiToken, { id });
  }

  describe('POST /v1/tokens', () => {
    it('creates a token made by the person: 201, the secret once, the entry, stored only as a hash', async () => {
      const o = await owner();
      const before = Date.now();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', o.cookie)
        .set('X-Workspace', o.workspace.id)
        .send({ name: '  CI reporting ', scopes: ['analytics:read', 'sites:read'] })
        .expect(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'CI reporting',
        prefix: expect.any(String),
        scopes: ['analytics:read', 'sites:read'],
        siteIds: null,
        createdBy: o.user.id,
        createdAt: expect.any(String),
        expiresAt: null,
        lastUsedAt: null,
        token: expect.any(String),
        shownOnce: true,
      });
      const secret: string = res.body.token;
      expect(secret.startsWith(res.body.prefix)).toBe(true);
      expect(res.body.prefix.length).toBeLessThan(secret.length / 2);
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);

      // Stored only as a hash: no column of the row holds the secret.
      const [raw] = await t.deps.orm.em
        .fork()
        .getConnection()
        .execute<Record<string, unknown>[]>('select * from api_tokens where id = ?', [res.body.id]);
      expect(raw).toBeDefined();
      expect(raw?.token_hash).not.toBe(secret);
      expect(raw?.token_hash).toBe(createHash('sha256').update(secret).digest('hex'));
      for (const value of Object.values(raw ?? {})) expect(JSON.stringify(value) ?? '').not.toContain(secret);
      expect(raw?.parent_token).toBeNull();

      // The secret works as a credential.
      const me = await t.request.get('/v1/me').set('Authorization', bearer(secret)).expect(200);
      expect(me.body).toMatchObject({ actor: { type: 'token', id: res.body.id }, scopes: ['analytics:read', 'sites:read'] });
    });

    it('gives every scope the caller holds, and a future expiresAt', async () => {
      const o = await owner();
      const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', o.cookie)
        .send({ name: 'everything', scopes: [...SCOPES], expiresAt })
        .expect(201);
      expect(res.body.scopes).toEqual([...SCOPES]);
      expect(res.body.expiresAt).toBe(expiresAt);
    });

    it('made by a token: createdBy is that token’s maker, parentToken is the calling token', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:write', 'sites:read']);
      const res = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'child', scopes: ['sites:read'] })
        .expect(201);
      expect(res.body.createdBy).toBe(o.user.id);
      const row = await rowOf(res.body.id);
      expect(row.parentToken).toBe(caller.id);
      expect(row.createdBy.id).toBe(o.user.id);
    });

    it('is idempotent: the same Idempotency-Key replays the first answer and makes one token', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:write', 'sites:read']);
      const key = randomUUID();
      const send = () =>
        t.request
          .post('/v1/tokens')
          .set('Authorization', bearer(caller.token))
          .set('Idempotency-Key', key)
          .send({ name: 'once', scopes: ['sites:read'] })
          .expect(201);
      const first = await send();
      const again = await send();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const rows = await t.deps.orm.em.fork().find(ApiToken, { workspace: o.workspace.id, name: 'once' });
      expect(rows).toHaveLength(1);
      const other = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .set('Idempotency-Key', key)
        .send({ name: 'twice', scopes: ['sites:read'] });
      expectProblem(other, 422);
    });

    it.each([
      [{ scopes: ['sites:read'] }, 'name'],
      [{ name: '', scopes: ['sites:read'] }, 'name'],
      [{ name: '   ', scopes: ['sites:read'] }, 'name'],
      [{ name: 'x'.repeat(81), scopes: ['sites:read'] }, 'name'],
      [{ name: 'n' }, 'scopes'],
      [{ name: 'n', scopes: [] }, 'scopes'],
      [{ name: 'n', scopes: 'sites:read' }, 'scopes'],
      [{ name: 'n', scopes: ['sites:read', 'sites:admin'] }, 'scopes[1]'],
      [{ name: 'n', scopes: ['sites:read', 'bot:read', 'sites:read'] }, 'scopes[2]'],
      [{ name: 'n', scopes: [...SCOPES, 'sites:read'] }, 'scopes'],
      [{ name: 'n', scopes: ['sites:read'], siteIds: [] }, 'siteIds'],
      [{ name: 'n', scopes: ['sites:read'], siteIds: Array.from({ length: 101 }, () => randomUUID()) }, 'siteIds'],
      [{ name: 'n', scopes: ['sites:read'], expiresAt: 'next week' }, 'expiresAt'],
      [{ name: 'n', scopes: ['sites:read'], expiresAt: '2099-01-01' }, 'expiresAt'],
      [{ name: 'n', scopes: ['sites:read'], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'n', scopes: ['sites:read'], token: 'ust_mine' }, 'token'],
      [{ name: 'n', scopes: ['sites:read'], role: 'owner' }, 'role'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const o = await owner();
      const res = await t.request.post('/v1/tokens').set('Cookie', o.cookie).send(body);
      const problem = expectProblem(res, 400, field);
      expect(problem.title).toContain(field);
    });

    it('refuses an expiresAt in the past (a second ago) with 400 expiresAt', async () => {
      const o = await owner();
      const expiresAt = new Date(Date.now() - 1000).toISOString();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', o.cookie)
        .send({ name: 'n', scopes: ['sites:read'], expiresAt });
      expect(expectProblem(res, 400, 'expiresAt').title).toMatch(/future/);
    });

    it('refuses scopes the maker lacks with 403 naming the scope', async () => {
      const o = await owner();
      // A viewer holds neither tokens:write nor sites:write.
      const viewer = await joinAs(t, o.workspace.id, 'viewer');
      const v = await t.request
        .post('/v1/tokens')
        .set('Cookie', viewer.cookie)
        .set('X-Workspace', o.workspace.id)
        .send({ name: 'n', scopes: ['sites:write'] });
      expect(expectProblem(v, 403).title).toMatch(/scope tokens:write/);

      // An admin holds tokens:write but not billing:write.
      const admin = await joinAs(t, o.workspace.id, 'admin');
      const a = await t.request
        .post('/v1/tokens')
        .set('Cookie', admin.cookie)
        .set('X-Workspace', o.workspace.id)
        .send({ name: 'n', scopes: ['sites:read', 'billing:write'] });
      expect(expectProblemCode(a, 'scope-missing').title).toMatch(/^Missing scope billing:write/);

      // A token with tokens:write but not members:write.
      const caller = await tokenFor(o, ['tokens:write', 'sites:read']);
      const tk = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'n', scopes: ['sites:read', 'members:write', 'billing:read'] });
      expect(expectProblemCode(tk, 'scope-missing').title).toMatch(/^Missing scope members:write/);

      const rows = await t.deps.orm.em.fork().find(ApiToken, { workspace: o.workspace.id, name: 'n' });
      expect(rows).toHaveLength(0);
    });

    // The attack: tokens made in a loop, each with its own request budget, each cached on every node.
    it(`keeps at most ${TOKEN_LIMITS.livePerWorkspace} live tokens per workspace (409), even when made at once; a revoked one frees its place`, async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:write', 'tokens:read', 'sites:read']);
      for (let i = 0; i < TOKEN_LIMITS.livePerWorkspace - 6; i++) await tokenFor(o, ['sites:read']);
      // A revoked and an expired token take no place.
      await t.deps.orm.em
        .fork()
        .nativeUpdate(ApiToken, { id: (await tokenFor(o, ['sites:read'])).id }, { revokedAt: new Date() });
      await t.deps.orm.em
        .fork()
        .nativeUpdate(ApiToken, { id: (await tokenFor(o, ['sites:read'])).id }, { expiresAt: new Date(Date.now() - 1000) });
      const make = () =>
        t.request
          .post('/v1/tokens')
          .set('Authorization', bearer(caller.token))
          .send({ name: 'loop', scopes: ['sites:read'] });
      const answers = await Promise.all(Array.from({ length: 10 }, make));
      expect(answers.filter((r) => r.status === 201)).toHaveLength(5);
      for (const refused of answers.filter((r) => r.status !== 201)) {
        expect(expectProblem(refused, 409).title).toMatch(/revoke the ones no longer used/);
      }
      const made = answers.find((r) => r.status === 201)?.body.id as string;
      await t.request.delete(`/v1/tokens/${made}`).set('Authorization', bearer(caller.token)).expect(204);
      await make().expect(201);
      expectProblem(await make(), 409);
    });

    // The attack: tokens made to expire at once (or deleted at once) take no live place, and each stays a row: a loop
    // grew the table and the workspace's token list without bound.
    it(`makes at most ${TOKEN_LIMITS.madePerWorkspacePerDay} tokens per workspace in 24 hours (429), expired and revoked ones included`, async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:write', 'tokens:read', 'sites:read']);
      // The day's tokens so far, made and then expired or revoked at once.
      await t.deps.orm.em.fork().execute(
        `insert into api_tokens (id, workspace_id, name, prefix, token_hash, scopes, created_by_id, created_at, expires_at, revoked_at)
         select gen_random_uuid(), ?, 'loop', 'us_x', md5(random()::text) || md5(random()::text), '{sites:read}', ?, now() - interval '1 hour',
                now() - interval '59 minutes', case when i % 2 = 0 then now() else null end
           from generate_series(1, ?) i`,
        [o.workspace.id, o.user.id, TOKEN_LIMITS.madePerWorkspacePerDay - 2],
      );
      const make = () =>
        t.request
          .post('/v1/tokens')
          .set('Authorization', bearer(caller.token))
          .send({ name: 'one more', scopes: ['sites:read'], expiresAt: new Date(Date.now() + 60_000).toISOString() });
      await make().expect(201);
      const refused = await make();
      expect(expectProblem(refused, 429).title).toMatch(/1000 API tokens in the last 24 hours/);
      expect(refused.headers['retry-after']).toBe('3600');
      // Another workspace makes its tokens as ever.
      const other = await owner();
      const otherCaller = await tokenFor(other, ['tokens:write', 'sites:read']);
      await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(otherCaller.token))
        .send({ name: 'fine', scopes: ['sites:read'] })
        .expect(201);
    });

    it('needs tokens:write, and credentials', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:read', 'sites:read']);
      const res = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'n', scopes: ['sites:read'] });
      expect(expectProblem(res, 403).title).toMatch(/tokens:write/);
      expectProblem(await t.request.post('/v1/tokens').send({ name: 'n', scopes: ['sites:read'] }), 401);
    });

    it('a token made by an expiring token expires no later than it', async () => {
      const o = await owner();
      const parentExpiry = new Date(Date.now() + 86_400_000);
      const caller = await tokenFor(o, ['tokens:write', 'sites:read'], { expiresAt: parentExpiry });
      const inherited = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'child', scopes: ['sites:read'] })
        .expect(201);
      expect(inherited.body.expiresAt).toBe(parentExpiry.toISOString());
      const sooner = new Date(Date.now() + 3600_000).toISOString();
      const shorter = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'child', scopes: ['sites:read'], expiresAt: sooner })
        .expect(201);
      expect(shorter.body.expiresAt).toBe(sooner);
      const later = await t.request
        .post('/v1/tokens')
        .set('Authorization', bearer(caller.token))
        .send({ name: 'child', scopes: ['sites:read'], expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() });
      expectProblem(later, 400, 'expiresAt');
    });
  });

  describe('GET /v1/tokens', () => {
    it('lists the workspace’s live tokens without secrets, newest first, with lastUsedAt once used', async () => {
      const o = await owner();
      const made = [];
      for (const name of ['first', 'second']) {
        const res = await t.request
          .post('/v1/tokens')
          .set('Cookie', o.cookie)
          .send({ name, scopes: ['tokens:read', 'sites:read'] })
          .expect(201);
        made.push(res.body);
      }
      const [first, second] = made;
      const revoked = await tokenFor(o, ['sites:read']);
      await t.request.delete(`/v1/tokens/${revoked.id}`).set('Cookie', o.cookie).expect(204);
      const stranger = await owner();
      await tokenFor(stranger, ['sites:read']);

      const list = await t.request.get('/v1/tokens').set('Cookie', o.cookie).expect(200);
      const { token: _s, shownOnce: _o, ...secondEntry } = second;
      const { token: _f, shownOnce: _p, ...firstEntry } = first;
      expect(list.body).toEqual({ tokens: [secondEntry, firstEntry] });
      for (const entry of list.body.tokens) expect(entry).not.toHaveProperty('token');
      expect(list.text).not.toContain(first.token);
      expect(list.text).not.toContain(second.token);

      // Using a token stamps lastUsedAt.
      const before = Date.now();
      const used = await t.request.get('/v1/tokens').set('Authorization', bearer(first.token)).expect(200);
      const entry = used.body.tokens.find((e: { id: string }) => e.id === first.id);
      expect(entry.lastUsedAt).not.toBeNull();
      expect(Date.parse(entry.lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(used.body.tokens.find((e: { id: string }) => e.id === second.id).lastUsedAt).toBeNull();
    });

    it('keeps expired tokens listed (they answer 401) so they can be deleted', async () => {
      const o = await owner();
      const expired = await tokenFor(o, ['sites:read'], { expiresAt: new Date(Date.now() - 60_000) });
      expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(expired.token)), 401);
      const list = await t.request.get('/v1/tokens').set('Cookie', o.cookie).expect(200);
      const entry = list.body.tokens.find((e: { id: string }) => e.id === expired.id);
      expect(Date.parse(entry.expiresAt)).toBeLessThan(Date.now());
      await t.request.delete(`/v1/tokens/${expired.id}`).set('Cookie', o.cookie).expect(204);
    });

    it('a token made with expiresAt answers 401 once that passes', async () => {
      const o = await owner();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', o.cookie)
        .send({ name: 'short', scopes: ['sites:read'], expiresAt: new Date(Date.now() + 3600_000).toISOString() })
        .expect(201);
      await t.request.get('/v1/me').set('Authorization', bearer(res.body.token)).expect(200);
      await t.deps.orm.em.fork().nativeUpdate(ApiToken, { id: res.body.id }, { expiresAt: new Date(Date.now() - 1000) });
      // Time passing, written into the row: a change outside the service tells the nodes' token caches itself.
      await bumpCredentialsGeneration(t.deps.hot);
      const gone = expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(res.body.token)), 401);
      expect(gone.title).toMatch(/expired/);
    });

    it('needs tokens:read', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['sites:read']);
      expect(expectProblem(await t.request.get('/v1/tokens').set('Authorization', bearer(caller.token)), 403).title).toMatch(
        /tokens:read/,
      );
      expectProblem(await t.request.get('/v1/tokens'), 401);
    });

    it('a person sees the tokens of the workspace chosen with X-Workspace', async () => {
      const o = await owner();
      const mine = await tokenFor(o, ['sites:read']);
      const em = t.deps.orm.em.fork();
      const other = em.create(Workspace, { name: 'Other' });
      em.create(Membership, { workspace: other, user: o.user.id, role: 'admin' });
      await em.flush();
      const theirs = await tokenFor({ user: o.user, workspace: other }, ['sites:read']);
      const a = await t.request.get('/v1/tokens').set('Cookie', o.cookie).set('X-Workspace', o.workspace.id).expect(200);
      expect(a.body.tokens.map((e: { id: string }) => e.id)).toEqual([mine.id]);
      const b = await t.request.get('/v1/tokens').set('Cookie', o.cookie).set('X-Workspace', other.id).expect(200);
      expect(b.body.tokens.map((e: { id: string }) => e.id)).toEqual([theirs.id]);
    });
  });

  describe('DELETE /v1/tokens/{id}', () => {
    it('revokes the token: 204, then it answers 401 and is no longer listed; again is 404', async () => {
      const o = await owner();
      const victim = await tokenFor(o, ['sites:read']);
      await t.request.get('/v1/me').set('Authorization', bearer(victim.token)).expect(200);
      const res = await t.request.delete(`/v1/tokens/${victim.id}`).set('Cookie', o.cookie).expect(204);
      expect(res.text).toBe('');
      expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(victim.token)), 401);
      expect((await rowOf(victim.id)).revokedAt).toBeInstanceOf(Date);
      const list = await t.request.get('/v1/tokens').set('Cookie', o.cookie).expect(200);
      expect(list.body.tokens.map((e: { id: string }) => e.id)).not.toContain(victim.id);
      expectProblem(await t.request.delete(`/v1/tokens/${victim.id}`).set('Cookie', o.cookie), 404);
    });

    it('replays 204 for a repeated Idempotency-Key', async () => {
      const o = await owner();
      const victim = await tokenFor(o, ['sites:read']);
      const key = randomUUID();
      await t.request.delete(`/v1/tokens/${victim.id}`).set('Cookie', o.cookie).set('Idempotency-Key', key).expect(204);
      const again = await t.request
        .delete(`/v1/tokens/${victim.id}`)
        .set('Cookie', o.cookie)
        .set('Idempotency-Key', key)
        .expect(204);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('a token may delete itself', async () => {
      const o = await owner();
      const self = await tokenFor(o, ['tokens:write', 'sites:read']);
      await t.request.delete(`/v1/tokens/${self.id}`).set('Authorization', bearer(self.token)).expect(204);
      expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(self.token)), 401);
    });

    it('answers 404 for an unknown id, a malformed id and another workspace’s token, which keeps working', async () => {
      const o = await owner();
      const stranger = await owner();
      const theirs = await tokenFor(stranger, ['sites:read']);
      expectProblem(await t.request.delete(`/v1/tokens/${randomUUID()}`).set('Cookie', o.cookie), 404);
      expectProblem(await t.request.delete('/v1/tokens/not-a-token').set('Cookie', o.cookie), 404);
      const cross = expectProblem(await t.request.delete(`/v1/tokens/${theirs.id}`).set('Cookie', o.cookie), 404);
      expect(cross.title).toMatch(/No such API token/);
      const caller = await tokenFor(o, ['tokens:write', ...SCOPES.filter((s) => s !== 'tokens:write')]);
      expectProblem(await t.request.delete(`/v1/tokens/${theirs.id}`).set('Authorization', bearer(caller.token)), 404);
      await t.request.get('/v1/me').set('Authorization', bearer(theirs.token)).expect(200);
    });

    it('a caller holding fewer scopes cannot delete a token with more: 403 naming the scope', async () => {
      const o = await owner();
      const weak = await tokenFor(o, ['tokens:write', 'sites:read']);
      const strong = await tokenFor(o, ['tokens:write', 'sites:read', 'sites:write']);
      const res = await t.request.delete(`/v1/tokens/${strong.id}`).set('Authorization', bearer(weak.token));
      expect(expectProblemCode(res, 'scope-missing').title).toMatch(/^Missing scope sites:write/);
      await t.request.get('/v1/me').set('Authorization', bearer(strong.token)).expect(200);
      // The stronger one may delete the weaker.
      await t.request.delete(`/v1/tokens/${weak.id}`).set('Authorization', bearer(strong.token)).expect(204);

      // An admin (no billing:write) cannot delete the owner's token holding it.
      const admin = await joinAs(t, o.workspace.id, 'admin');
      const billing = await tokenFor(o, ['billing:write']);
      const a = await t.request.delete(`/v1/tokens/${billing.id}`).set('Cookie', admin.cookie).set('X-Workspace', o.workspace.id);
      expect(expectProblem(a, 403).title).toMatch(/billing:write/);
    });

    it('needs tokens:write', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:read', 'sites:read']);
      const victim = await tokenFor(o, ['sites:read']);
      const res = await t.request.delete(`/v1/tokens/${victim.id}`).set('Authorization', bearer(caller.token));
      expect(expectProblem(res, 403).title).toMatch(/tokens:write/);
    });
  });

  describe('as MCP tools', () => {
    it('create_token, list_tokens and delete_token answer as the routes do', async () => {
      const o = await owner();
      const caller = await tokenFor(o, ['tokens:read', 'tokens:write', 'sites:read']);
      const call = (name: string, args: Record<string, unknown>) =>
        modernCall(t.url, caller.token, 'tools/call', { name, arguments: args });

      const created = await call('create_token', { name: 'from MCP', scopes: ['sites:read'], idempotencyKey: randomUUID() });
      expect(created.status).toBe(200);
      const made = created.body.result.structuredContent;
      expect(made).toMatchObject({ name: 'from MCP', scopes: ['sites:read'], shownOnce: true, createdBy: o.user.id });
      expect(made.token.startsWith(made.prefix)).toBe(true);

      const listed = await call('list_tokens', {});
      const ids = listed.body.result.structuredContent.tokens.map((e: { id: string }) => e.id);
      expect(ids).toEqual(expect.arrayContaining([made.id, caller.id]));
      expect(listed.body.result.content[0].text).not.toContain(made.token);

      const refused = await call('create_token', { name: 'n', scopes: ['sites:write'] });
      expect(refused.body.result.isError).toBe(true);
      expect(refused.body.result.content[0].text).toMatch(/^Missing scope sites:write/);
      expect(refused.body.result.structuredContent).toMatchObject({
        type: '/problems/scope-missing',
        code: 'scope-missing',
        status: 403,
      });

      const deleted = await call('delete_token', { id: made.id });
      expect(deleted.body.result.isError).toBeFalsy();
      expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(made.token)), 401);
    });
  });
});
