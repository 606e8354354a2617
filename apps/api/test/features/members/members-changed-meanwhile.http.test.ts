import { Membership } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { racedChange } from '../../support/raced-change.ts';
import { createUser, signIn, startTestServer, type TestServer } from '../../support/server.ts';

/**
 * An admin demoted while their request to change or remove another member waits for the workspace's lock: once
 * the demotion commits, the request is refused as the role the admin now holds, and the other member is untouched.
 */
describe('member changes asked by someone demoted meanwhile', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** An owner's workspace with two admins, the first signed in. */
  async function workspaceOfAdmins() {
    const owner = await createUser(t.deps);
    const [asking, other] = [await createUser(t.deps), await createUser(t.deps)];
    for (const m of [asking, other]) {
      await t.deps.orm.em
        .fork()
        .insert(Membership, { workspace: owner.workspace.id, user: m.user.id, role: 'admin', joinedAt: new Date() });
    }
    const cookie = await signIn(t, asking.email);
    return { owner, asking, other, cookie };
  }

  const roleOf = async (workspaceId: string, userId: string) =>
    (await t.deps.orm.em.fork().findOne(Membership, { workspace: workspaceId, user: userId }))?.role ?? null;

  const demotedWhileWaiting = <T>(workspaceId: string, userId: string, request: () => Promise<T>) =>
    racedChange(
      t.deps.orm,
      (sql) => sql('select 1 from workspaces where id = ? for update', [workspaceId]),
      request,
      '%from workspaces where id%for update%',
      async (sql) => {
        await sql(`update memberships set role = 'viewer' where workspace_id = ? and user_id = ?`, [workspaceId, userId]);
      },
    );

  it('removing a member: 403 naming members:write, and the member stays', async () => {
    const { owner, asking, other, cookie } = await workspaceOfAdmins();
    const res = await demotedWhileWaiting(owner.workspace.id, asking.user.id, () =>
      t.request
        .delete(`/v1/members/${other.user.id}`)
        .set('Cookie', cookie)
        .set('X-Workspace', owner.workspace.id)
        .then((r) => r),
    );
    expect(expectProblem(res, 403).title).toContain('members:write');
    expect(await roleOf(owner.workspace.id, other.user.id)).toBe('admin');
  });

  it("changing a member's role: 403 naming members:write, and the role stays", async () => {
    const { owner, asking, other, cookie } = await workspaceOfAdmins();
    const res = await demotedWhileWaiting(owner.workspace.id, asking.user.id, () =>
      t.request
        .patch(`/v1/members/${other.user.id}`)
        .set('Cookie', cookie)
        .set('X-Workspace', owner.workspace.id)
        .send({ role: 'viewer' })
        .then((r) => r),
    );
    expect(expectProblem(res, 403).title).toContain('members:write');
    expect(await roleOf(owner.workspace.id, other.user.id)).toBe('admin');
  });

  it('leaving needs no scope: a member demoted meanwhile still leaves', async () => {
    const { owner, asking, cookie } = await workspaceOfAdmins();
    const res = await demotedWhileWaiting(owner.workspace.id, asking.user.id, () =>
      t.request
        .delete(`/v1/members/${asking.user.id}`)
        .set('Cookie', cookie)
        .set('X-Workspace', owner.workspace.id)
        .then((r) => r),
    );
    expect(res.status).toBe(204);
    expect(await roleOf(owner.workspace.id, asking.user.id)).toBeNull();
  });
});
