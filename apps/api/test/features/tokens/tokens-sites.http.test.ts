import { randomUUID } from 'node:crypto';
import type { Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('API tokens and sites', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const bearer = (token: string) => `Bearer ${token}`;
  const ids = (body: { tokens: { id: string }[] }) => body.tokens.map((e) => e.id).sort();

  /** Sites straight through the ORM (the site routes are not under test here). */
  async function makeSites(workspaceId: string, n: number): Promise<string[]> {
    const em = t.deps.orm.em.fork();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await createSite(em, { workspace: workspaceId, name: `Site ${i + 1}` })).siteId);
    return ids;
  }

  async function setup() {
    const o = await createUser(t.deps);
    const cookie = await signIn(t, o.email);
    const [s1, s2, s3] = (await makeSites(o.workspace.id, 3)) as [string, string, string];
    const restricted = await createToken(t.deps, {
      userId: o.user.id,
      workspaceId: o.workspace.id,
      scopes: ['tokens:read', 'tokens:write', 'sites:read', 'analytics:read'],
      siteIds: [s1, s2],
    });
    const token = (scopes: Scope[], siteIds: string[] | null) =>
      createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes, siteIds });
    return { ...o, cookie, s1, s2, s3, restricted, token };
  }

  const post = (auth: string, body: Record<string, unknown>) =>
    t.request.post('/v1/tokens').set('Authorization', auth).send(body);

  describe('POST /v1/tokens with siteIds', () => {
    it('restricts a token to sites of the workspace, as given', async () => {
      const w = await setup();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', w.cookie)
        .send({ name: 'two sites', scopes: ['analytics:read'], siteIds: [w.s3, w.s1] })
        .expect(201);
      expect(res.body.siteIds).toEqual([w.s3, w.s1]);
      const me = await t.request.get('/v1/me').set('Authorization', bearer(res.body.token)).expect(200);
      expect(me.body.siteIds).toEqual([w.s3, w.s1]);
    });

    it('stores site ids as the workspace spells them (upper-case ids are the same site)', async () => {
      const w = await setup();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', w.cookie)
        .send({ name: 'upper', scopes: ['analytics:read'], siteIds: [w.s2.toUpperCase()] })
        .expect(201);
      expect(res.body.siteIds).toEqual([w.s2]);
    });

    it('a restricted token opens its site by an upper-case id too, as every other caller does', async () => {
      const w = await setup();
      const bearer = `Bearer ${w.restricted.token}`;
      await t.request.get(`/v1/sites/${w.s1.toUpperCase()}`).set('Authorization', bearer).expect(200);
      await t.request.get(`/v1/sites/${w.s3.toUpperCase()}`).set('Authorization', bearer).expect(404);
    });

    it('null siteIds is every site, as when omitted', async () => {
      const w = await setup();
      const res = await t.request
        .post('/v1/tokens')
        .set('Cookie', w.cookie)
        .send({ name: 'all', scopes: ['analytics:read'], siteIds: null })
        .expect(201);
      expect(res.body.siteIds).toBeNull();
    });

    it('refuses a site of another workspace, an unknown id and a malformed one: 400 siteIds[i]', async () => {
      const w = await setup();
      const stranger = await createUser(t.deps);
      const [theirs] = (await makeSites(stranger.workspace.id, 1)) as [string];
      const send = (siteIds: string[]) =>
        t.request
          .post('/v1/tokens')
          .set('Cookie', w.cookie)
          .send({ name: 'n', scopes: ['sites:read'], siteIds });
      const cross = expectProblem(await send([w.s1, theirs]), 400, 'siteIds[1]');
      expect(cross.title).toMatch(/not a site of this workspace/);
      expectProblem(await send([randomUUID()]), 400, 'siteIds[0]');
      expectProblem(await send([w.s1, w.s2, 'my-site']), 400, 'siteIds[2]');
      expectProblem(await send([w.s1, w.s2, w.s1]), 400, 'siteIds[2]');
    });

    it('a site-restricted token passes its restriction on when siteIds is omitted', async () => {
      const w = await setup();
      const res = await post(bearer(w.restricted.token), { name: 'inherit', scopes: ['analytics:read'] }).expect(201);
      expect(res.body.siteIds).toEqual([w.s1, w.s2]);
      const narrower = await post(bearer(w.restricted.token), {
        name: 'one',
        scopes: ['analytics:read'],
        siteIds: [w.s2],
      }).expect(201);
      expect(narrower.body.siteIds).toEqual([w.s2]);
      const everySite = await post(bearer(w.restricted.token), { name: 'null', scopes: ['analytics:read'], siteIds: null });
      expect(everySite.body.siteIds).toEqual([w.s1, w.s2]);
    });

    it('a site-restricted token cannot make a token for sites outside its own: 403', async () => {
      const w = await setup();
      const stranger = await createUser(t.deps);
      const [theirs] = (await makeSites(stranger.workspace.id, 1)) as [string];
      for (const siteIds of [[w.s3], [w.s1, w.s3], [theirs], [randomUUID()]]) {
        const res = await post(bearer(w.restricted.token), { name: 'wider', scopes: ['analytics:read'], siteIds });
        expect(expectProblem(res, 403).title).toMatch(/outside this token's sites/);
      }
    });
  });

  describe('a site-restricted caller', () => {
    it('lists only the tokens whose sites lie within its own', async () => {
      const w = await setup();
      const inside = await w.token(['sites:read'], [w.s1]);
      const both = await w.token(['sites:read'], [w.s2, w.s1]);
      const outside = await w.token(['sites:read'], [w.s3]);
      const straddling = await w.token(['sites:read'], [w.s1, w.s3]);
      const everywhere = await w.token(['sites:read'], null);
      const res = await t.request.get('/v1/tokens').set('Authorization', bearer(w.restricted.token)).expect(200);
      expect(ids(res.body)).toEqual([w.restricted.id, inside.id, both.id].sort());

      const full = await t.request.get('/v1/tokens').set('Cookie', w.cookie).expect(200);
      expect(ids(full.body)).toEqual([w.restricted.id, inside.id, both.id, outside.id, straddling.id, everywhere.id].sort());
    });

    it('answers 404 when deleting a token outside its sites, and deletes one within them', async () => {
      const w = await setup();
      const inside = await w.token(['sites:read'], [w.s2]);
      const outside = await w.token(['sites:read'], [w.s3]);
      const everywhere = await w.token(['sites:read'], null);
      for (const x of [outside, everywhere]) {
        expectProblem(await t.request.delete(`/v1/tokens/${x.id}`).set('Authorization', bearer(w.restricted.token)), 404);
        await t.request.get('/v1/me').set('Authorization', bearer(x.token)).expect(200);
      }
      await t.request.delete(`/v1/tokens/${inside.id}`).set('Authorization', bearer(w.restricted.token)).expect(204);
      expectProblem(await t.request.get('/v1/me').set('Authorization', bearer(inside.token)), 401);
    });
  });
});
