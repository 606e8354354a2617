import { ApiToken, Membership } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { racedChange, type Sql } from '../../support/raced-change.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * A token asked for while its maker is being removed, or while the token asking is being revoked, must not
 * outlive what ended its maker's authority. Each test holds the workspace's lock as the removal or revocation
 * does, lets the request queue behind it, ends the authority in that same transaction, and lets go.
 */
describe('tokens made while their maker loses the right to make them', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const whileHeld = <T>(
    hold: (sql: Sql) => Promise<unknown>,
    request: () => Promise<T>,
    waiting: string,
    end?: (sql: Sql) => Promise<void>,
  ) => racedChange(t.deps.orm, hold, request, waiting, end);

  /** Runs `end` inside a transaction holding the workspace's row lock once `request` is waiting for that lock. */
  const whileLocked = <T>(workspaceId: string, request: () => Promise<T>, end: (sql: Sql) => Promise<void>) =>
    whileHeld(
      (sql) => sql('select 1 from workspaces where id = ? for update', [workspaceId]),
      request,
      '%from workspaces where id%for update%',
      end,
    );

  const liveTokensOf = (userId: string) => t.deps.orm.em.fork().count(ApiToken, { createdBy: userId, revokedAt: null });

  /** An owner's workspace with a signed-in admin, and that admin's request for a token with `scopes`. */
  async function adminAsking(name: string, scopes: string[]) {
    const owner = await createUser(t.deps);
    const admin = await createUser(t.deps);
    await t.deps.orm.em
      .fork()
      .insert(Membership, { workspace: owner.workspace.id, user: admin.user.id, role: 'admin', joinedAt: new Date() });
    const cookie = await signIn(t, admin.email);
    const ask = () =>
      t.request
        .post('/v1/tokens')
        .set('Cookie', cookie)
        .set('X-Workspace', owner.workspace.id)
        .send({ name, scopes })
        .then((r) => r);
    return { owner, admin, ask };
  }

  it('a member removed while their token request waits gets no token', async () => {
    const { owner, admin, ask } = await adminAsking('on my way out', ['sites:read', 'members:write']);
    const res = await whileLocked(owner.workspace.id, ask, async (sql) => {
      await sql('delete from memberships where workspace_id = ? and user_id = ?', [owner.workspace.id, admin.user.id]);
      await sql('update api_tokens set revoked_at = now() where workspace_id = ? and created_by_id = ? and revoked_at is null', [
        owner.workspace.id,
        admin.user.id,
      ]);
    });
    expectProblem(res, 403);
    expect(await liveTokensOf(admin.user.id)).toBe(0);
  });

  it('a token revoked while it waits to make another makes none', async () => {
    const owner = await createUser(t.deps);
    const leaked = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['tokens:write', 'sites:read'],
    });
    const res = await whileLocked(
      owner.workspace.id,
      () =>
        t.request
          .post('/v1/tokens')
          .set('Authorization', `Bearer ${leaked.token}`)
          .send({ name: 'a way back in', scopes: ['sites:read'] })
          .then((r) => r),
      async (sql) => {
        await sql('update api_tokens set revoked_at = now() where id = ?', [leaked.id]);
      },
    );
    expectProblem(res, 401);
    expect(await t.deps.orm.em.fork().count(ApiToken, { parentToken: leaked.id })).toBe(0);
  });

  it('a member demoted while their token request waits cannot give scopes the new role lacks', async () => {
    const { owner, admin, ask } = await adminAsking('before the demotion', ['members:write']);
    const res = await whileLocked(owner.workspace.id, ask, async (sql) => {
      await sql(`update memberships set role = 'viewer' where workspace_id = ? and user_id = ?`, [
        owner.workspace.id,
        admin.user.id,
      ]);
    });
    expect(expectProblem(res, 403).title).toContain('members:write');
    expect(await liveTokensOf(admin.user.id)).toBe(0);
  });

  // The same race for what a token makes besides tokens: a revocation deletes the links, rules, reports and
  // invitations made with the token, and one made meanwhile was left.
  it('a token revoked while it makes a shared link, an alert, a report or an invitation makes none of them', async () => {
    const owner = await createUser(t.deps, { plan: 'Business' });
    const siteId = (await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Raced' })).siteId;
    // Shared links and reports are dashboard operations (tRPC); alerts and invitations have REST routes too.
    const caller = (token: string) => callerFor(t.deps, { token });
    const statusOf = async (made: Promise<unknown>) => (await problemOf(made)).status;
    const asks = [
      (token: string) => statusOf(caller(token).shares.create({ id: siteId, label: 'raced' })),
      (token: string) => statusOf(caller(token).reports.add({ id: siteId, address: 'raced@example.com', frequency: 'weekly' })),
      async (token: string) =>
        (
          await t.request
            .post(`/v1/sites/${siteId}/alerts`)
            .set('Authorization', `Bearer ${token}`)
            .send({ kind: 'first_pageview', webhookUrl: 'https://hooks.example.com/raced' })
        ).status,
      async (token: string) =>
        (
          await t.request
            .post('/v1/members/invites')
            .set('Authorization', `Bearer ${token}`)
            .send({ email: 'raced@example.com', role: 'admin' })
        ).status,
    ];
    for (const ask of asks) {
      const leaked = await createToken(t.deps, {
        userId: owner.user.id,
        workspaceId: owner.workspace.id,
        scopes: ['analytics:read', 'sites:read', 'sites:write', 'members:write'],
      });
      const status = await whileHeld(
        (sql) => sql('update api_tokens set revoked_at = now() where id = ?', [leaked.id]),
        () => ask(leaked.token),
        '%api_tokens%',
      );
      expect(status).toBe(401);
    }
    const made = await t.deps.orm.em.fork().execute<{ n: number }[]>(
      `select (select count(*) from share_links where site_id = ?) + (select count(*) from alerts where site_id = ?)
            + (select count(*) from email_reports where site_id = ?)
            + (select count(*) from invites where workspace_id = ? and withdrawn_at is null) as n`,
      [siteId, siteId, siteId, owner.workspace.id],
    );
    expect(Number(made[0]?.n)).toBe(0);
  });
});
