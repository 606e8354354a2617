import { randomUUID } from 'node:crypto';
import { Workspace } from '@us/db';
import { LIMITS } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, joinAs, signIn, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('GET and PATCH /v1/workspace', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  async function addSites(workspaceId: string, n: number) {
    const em = t.deps.orm.em.fork();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await createSite(em, { workspace: workspaceId, name: `Site ${i}` })).siteId);
    return ids;
  }

  it('describes the workspace: plan, status, Free allowances and usage', async () => {
    const { workspace, email } = await createUser(t.deps, { workspaceName: 'Acme analytics' });
    const cookie = await signIn(t, email);
    await addSites(workspace.id, 2);
    const res = await t.request.get('/v1/workspace').set('Cookie', cookie).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: workspace.id,
      name: 'Acme analytics',
      plan: 'Free',
      status: 'active',
      createdAt: workspace.createdAt.toISOString(),
      limits: { sites: 5, members: 2, proxyHostnames: 1 },
      usage: { sites: 2, members: 1 },
    });
  });

  it('shows the allowances of the workspace’s plan (Business: unlimited sites and members)', async () => {
    const { user, workspace } = await createUser(t.deps);
    await t.deps.orm.em.fork().nativeUpdate(Workspace, { id: workspace.id }, { plan: 'Business' });
    const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['members:read'] });
    const res = await t.request.get('/v1/workspace').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body.plan).toBe('Business');
    expect(res.body.limits).toEqual({ sites: null, members: null, proxyHostnames: 50 });
  });

  it('for a site-restricted token counts only its sites and gives no member count', async () => {
    const { user, workspace } = await createUser(t.deps);
    const [a, b] = await addSites(workspace.id, 3);
    const other = await createUser(t.deps);
    const [foreign] = await addSites(other.workspace.id, 1);
    const restricted = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['members:read'],
      siteIds: [a as string, b as string, foreign as string],
    });
    const full = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['members:read'] });

    const r = await t.request.get('/v1/workspace').set('Authorization', `Bearer ${restricted.token}`).expect(200);
    expect(r.body.usage).toEqual({ sites: 2, members: null });
    expect(r.body.limits.members).toBe(2);

    const f = await t.request.get('/v1/workspace').set('Authorization', `Bearer ${full.token}`).expect(200);
    expect(f.body.usage).toEqual({ sites: 3, members: 1 });
  });

  it('needs members:read: viewers and tokens without it get 403 naming the scope; no credentials 401', async () => {
    const { user, workspace } = await createUser(t.deps);
    const viewer = await joinAs(t, workspace.id, 'viewer');
    const v = expectProblem(
      await t.request.get('/v1/workspace').set('Cookie', viewer.cookie).set('X-Workspace', workspace.id),
      403,
    );
    expect(v.title).toContain('members:read');

    const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['sites:read'] });
    expect(expectProblem(await t.request.get('/v1/workspace').set('Authorization', `Bearer ${token}`), 403).title).toContain(
      'members:read',
    );
    expectProblem(await t.request.get('/v1/workspace'), 401);

    const member = await joinAs(t, workspace.id, 'member');
    const m = await t.request.get('/v1/workspace').set('Cookie', member.cookie).set('X-Workspace', workspace.id).expect(200);
    expect(m.body.id).toBe(workspace.id);
    expect(m.body.usage.members).toBe(3);
  });

  describe('PATCH /v1/workspace', () => {
    it('renames the workspace (name trimmed) and answers the Workspace', async () => {
      const { workspace, email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const res = await t.request.patch('/v1/workspace').set('Cookie', cookie).send({ name: '  Renamed  ' }).expect(200);
      expect(res.body).toMatchObject({ id: workspace.id, name: 'Renamed', plan: 'Free', usage: { sites: 0, members: 1 } });
      const row = await t.deps.orm.em.fork().findOneOrFail(Workspace, { id: workspace.id });
      expect(row.name).toBe('Renamed');
      const me = await t.request.get('/v1/me').set('Cookie', cookie).expect(200);
      expect(me.body.memberships[0].name).toBe('Renamed');
    });

    it('works for an admin and for an unrestricted members:write token', async () => {
      const { user, workspace } = await createUser(t.deps);
      const admin = await joinAs(t, workspace.id, 'admin');
      await t.request
        .patch('/v1/workspace')
        .set('Cookie', admin.cookie)
        .set('X-Workspace', workspace.id)
        .send({ name: 'By admin' })
        .expect(200);
      const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['members:write'] });
      const res = await t.request
        .patch('/v1/workspace')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'By token' })
        .expect(200);
      expect(res.body.name).toBe('By token');
    });

    it('refuses an empty or too long name, a missing name and unknown fields (400 with field), changing nothing', async () => {
      const { workspace, email } = await createUser(t.deps, { workspaceName: 'Kept' });
      const cookie = await signIn(t, email);
      expectProblem(await t.request.patch('/v1/workspace').set('Cookie', cookie).send({ name: '   ' }), 400, 'name');
      expectProblem(
        await t.request
          .patch('/v1/workspace')
          .set('Cookie', cookie)
          .send({ name: 'x'.repeat(81) }),
        400,
        'name',
      );
      expectProblem(await t.request.patch('/v1/workspace').set('Cookie', cookie).send({}), 400, 'name');
      expectProblem(
        await t.request.patch('/v1/workspace').set('Cookie', cookie).send({ name: 'A', plan: 'Business' }),
        400,
        'plan',
      );
      const row = await t.deps.orm.em.fork().findOneOrFail(Workspace, { id: workspace.id });
      expect(row).toMatchObject({ name: 'Kept', plan: 'Free' });
    });

    it('refuses site-restricted tokens, members and viewers (403), changing nothing', async () => {
      const { user, workspace } = await createUser(t.deps, { workspaceName: 'Kept' });
      const [site] = await addSites(workspace.id, 1);
      const restricted = await createToken(t.deps, {
        userId: user.id,
        workspaceId: workspace.id,
        scopes: ['members:read', 'members:write'],
        siteIds: [site as string],
      });
      const r = expectProblem(
        await t.request.patch('/v1/workspace').set('Authorization', `Bearer ${restricted.token}`).send({ name: 'No' }),
        403,
      );
      expect(r.title).toMatch(/site-restricted/i);

      for (const role of ['member', 'viewer'] as const) {
        const p = await joinAs(t, workspace.id, role);
        const res = await t.request
          .patch('/v1/workspace')
          .set('Cookie', p.cookie)
          .set('X-Workspace', workspace.id)
          .send({ name: 'No' });
        expect(expectProblem(res, 403).title).toContain('members:write');
      }
      const row = await t.deps.orm.em.fork().findOneOrFail(Workspace, { id: workspace.id });
      expect(row.name).toBe('Kept');
    });

    it('honours Idempotency-Key: a repeat replays the first answer', async () => {
      const { email } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const first = await t.request
        .patch('/v1/workspace')
        .set('Cookie', cookie)
        .set('Idempotency-Key', 'rename-1')
        .send({ name: 'Once' })
        .expect(200);
      const again = await t.request
        .patch('/v1/workspace')
        .set('Cookie', cookie)
        .set('Idempotency-Key', 'rename-1')
        .send({ name: 'Once' })
        .expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    // The attack: a new Idempotency-Key on every call. Each kept its answer 24 hours in the hot store (in the
    // process, with no Redis), so a loop grew it without bound. A caller has 10,000 new keys a day in a workspace.
    it(`keeps ${LIMITS.idempotencyKeysPerDay.toLocaleString('en')} new keys a day per caller: then 429, a replay and a call without a key still answered`, async () => {
      const { email, user, workspace } = await createUser(t.deps);
      const cookie = await signIn(t, email);
      const rename = (key?: string) => {
        const req = t.request.patch('/v1/workspace').set('Cookie', cookie);
        return (key ? req.set('Idempotency-Key', key) : req).send({ name: 'Keyed' });
      };
      await rename('kept-1').expect(200);
      // As if the caller had used its day's keys since.
      await t.deps.hot.set(`idem-n:u:${user.id}:w:${workspace.id}`, String(LIMITS.idempotencyKeysPerDay), 3600);
      const refused = await rename('one-more');
      expectProblem(refused, 429);
      expect(refused.body.title).toMatch(/idempotency keys in 24 hours/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await rename('kept-1').expect(200)).headers['idempotent-replayed']).toBe('true');
      await rename().expect(200);
      // Another workspace's keys are its own.
      const other = await createUser(t.deps);
      await t.request
        .patch('/v1/workspace')
        .set('Cookie', await signIn(t, other.email))
        .set('Idempotency-Key', 'one-more')
        .send({ name: 'Other' })
        .expect(200);
    });

    // The attack: the workspace's day of keys was counted for anyone, a refused request included, so a viewer sending
    // 10,000 keyed requests that answer 404 left every owner and token of the workspace 429 on keyed writes for a day.
    it('a member’s keys, refused ones above all, spend nothing of another caller’s day', async () => {
      const owner = await createUser(t.deps);
      const viewer = await joinAs(t, owner.workspace.id, 'viewer');
      const viewerCookie = viewer.cookie;
      const refusedDelete = (key: string) =>
        t.request
          .delete(`/v1/auth/sessions/${randomUUID()}`)
          .set('Cookie', viewerCookie)
          .set('X-Workspace', owner.workspace.id)
          .set('Idempotency-Key', key);
      for (let i = 0; i < 5; i++) expectProblem(await refusedDelete(`gone-${i}`), 404);
      // Refused requests keep no answer: they spend none of the viewer's day either.
      expect(Number((await t.deps.hot.get(`idem-n:u:${viewer.user.id}:w:${owner.workspace.id}`)) ?? 0)).toBe(0);
      // As if the viewer had spent a day of keys: the owner's keyed write is still answered.
      await t.deps.hot.set(`idem-n:u:${viewer.user.id}:w:${owner.workspace.id}`, String(LIMITS.idempotencyKeysPerDay), 3600);
      expectProblem(await refusedDelete('one-more'), 429);
      await t.request
        .patch('/v1/workspace')
        .set('Cookie', await signIn(t, owner.email))
        .set('X-Workspace', owner.workspace.id)
        .set('Idempotency-Key', 'owner-1')
        .send({ name: 'Still mine' })
        .expect(200);
    });
  });
});
