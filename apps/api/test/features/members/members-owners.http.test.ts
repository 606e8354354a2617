import { Membership } from '@us/db';
import { scopesOfRole } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/actor/actor.ts';
import { canManageOwners } from '../../../src/features/members/seats.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';

/** Owners are managed by owners: an admin's account:admin token must not be a way around that. */
describe('workspace owners', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  async function workspaceWithAdmin() {
    const owner = await createUser(t.deps);
    const admin = await createUser(t.deps);
    const viewer = await createUser(t.deps);
    const em = t.deps.orm.em.fork();
    em.create(Membership, { workspace: owner.workspace.id, user: admin.user.id, role: 'admin' });
    em.create(Membership, { workspace: owner.workspace.id, user: viewer.user.id, role: 'viewer' });
    await em.flush();
    return { owner, admin, viewer, workspaceId: owner.workspace.id };
  }

  it("refuses an admin's account:admin token making an owner (403), and the role stays", async () => {
    const w = await workspaceWithAdmin();
    expect(scopesOfRole('admin')).toContain('account:admin');
    const { token } = await createToken(t.deps, {
      userId: w.admin.user.id,
      workspaceId: w.workspaceId,
      scopes: scopesOfRole('admin'),
    });
    const res = await t.request
      .patch(`/v1/members/${w.viewer.user.id}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ role: 'owner' });
    expectProblem(res, 403);
    const m = await t.deps.orm.em.fork().findOneOrFail(Membership, { workspace: w.workspaceId, user: w.viewer.user.id });
    expect(m.role).toBe('viewer');
  });

  it("lets an owner's account:admin token make an owner, until that maker stops being an owner", async () => {
    const w = await workspaceWithAdmin();
    const { token } = await createToken(t.deps, {
      userId: w.owner.user.id,
      workspaceId: w.workspaceId,
      scopes: ['members:write', 'account:admin'],
    });
    const ok = await t.request
      .patch(`/v1/members/${w.viewer.user.id}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ role: 'owner' });
    expect(ok.status).toBe(200);
    expect(ok.body.role).toBe('owner');
  });

  // The race: an owner being demoted by another owner, with a request of their own already under way as an owner,
  // could still remove or demote a third owner: the check read the role the request began with.
  it('asks whether a person is an owner as the workspace is now, not as their request began', async () => {
    const w = await workspaceWithAdmin();
    const em = t.deps.orm.em.fork();
    const asOwner = (user: unknown) =>
      ({
        type: 'user',
        user,
        workspaceId: w.workspaceId,
        role: 'owner',
        scopes: scopesOfRole('owner'),
        siteIds: null,
      }) as unknown as Actor;
    expect(await canManageOwners(em, asOwner(w.owner.user))).toBe(true);
    // The admin's request began while they were an owner; they are not one now.
    expect(await canManageOwners(em, asOwner(w.admin.user))).toBe(false);
  });
});
