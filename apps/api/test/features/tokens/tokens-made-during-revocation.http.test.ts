import { ApiToken, Membership } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';

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

  /** Runs `end` inside a transaction holding the workspace's row lock once `request` is waiting for that lock. */
  async function whileLocked<T>(workspaceId: string, request: () => Promise<T>, end: (sql: Sql) => Promise<void>): Promise<T> {
    const em = t.deps.orm.em.fork();
    let pending: Promise<T> | undefined;
    await em.transactional(async (tx) => {
      await tx.execute('select 1 from workspaces where id = ? for update', [workspaceId]);
      pending = request();
      await expect
        .poll(async () => {
          const [row] = await t.deps.orm.em
            .fork()
            .execute<{ n: number }[]>(
              `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%from workspaces where id%for update%'`,
            );
          return row?.n ?? 0;
        })
        .toBeGreaterThan(0);
      await end((sql, params) => tx.execute(sql, params));
    });
    return pending as Promise<T>;
  }
  type Sql = (sql: string, params: unknown[]) => Promise<unknown>;

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
});
