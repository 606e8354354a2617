import type { EntityManager } from '@mikro-orm/postgresql';
import { Invite, Membership, type User } from '@us/db';
import { type MemberList, type Member as MemberOut, type Role, scopesOfRole } from '@us/shared';
import { isUuid, workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import { AppError, forbidden, notFound, scopeMissing } from '../../core/errors.ts';
import { revokeMemberTokens, revokeTokensBeyondRole } from '../tokens/index.ts';
import { inviteView } from './invites.ts';
import { asRole, canManageOwners, lockWorkspace, pendingInvite } from './seats.ts';

function memberView(m: Membership): MemberOut {
  const user = m.user as unknown as User;
  return {
    userId: user.id,
    email: user.email,
    role: asRole(m.role),
    twoFactor: Boolean(user.twoFactorEnabledAt),
    joinedAt: m.joinedAt.toISOString(),
  };
}

/** The membership of `userId` in the workspace (with its user), or the 404 any other id gets. */
async function findMember(em: EntityManager, workspaceId: string, userId: string): Promise<Membership> {
  const m = isUuid(userId)
    ? await em.findOne(Membership, { workspace: workspaceId, user: userId }, { populate: ['user'] })
    : null;
  if (!m) throw notFound('member');
  return m;
}

const OWNERS_ONLY = (what: string) =>
  forbidden(`Only an owner (or a token with account:admin) can ${what}: ask an owner of this workspace`);
const LAST_OWNER = (what: string) =>
  new AppError(409, `This is the workspace's last owner and cannot ${what}: make another member an owner first`);

export async function listMembers(em: EntityManager, actor: Actor): Promise<MemberList> {
  const workspaceId = workspaceIdOf(actor);
  const [members, invites] = await Promise.all([
    em.find(Membership, { workspace: workspaceId }, { populate: ['user'], orderBy: { joinedAt: 'asc' } }),
    em.find(Invite, pendingInvite(workspaceId), { orderBy: { createdAt: 'asc' } }),
  ]);
  return { members: members.map(memberView), invites: invites.map(inviteView) };
}

/**
 * Changes a member's role. Owners are made, changed and demoted only by an owner (or a token with
 * account:admin); the last owner stays one. Tokens the person made here holding scopes the new role
 * lacks are revoked in the same transaction.
 */
export async function changeRole(em: EntityManager, actor: Actor, input: { userId: string; role: Role }): Promise<MemberOut> {
  const workspaceId = workspaceIdOf(actor);
  return em.transactional(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    // Under the lock a removal or demotion takes: a caller who lost the right meanwhile changes no one.
    await checkStillEntitled(tx, actor, workspaceId, ['members:write']);
    const m = await findMember(tx, workspaceId, input.userId);
    const from = asRole(m.role);
    if (from === 'owner' && !(await canManageOwners(tx, actor))) throw OWNERS_ONLY("change an owner's role");
    if (input.role === 'owner' && !(await canManageOwners(tx, actor))) throw OWNERS_ONLY('make an owner');
    if (from === input.role) return memberView(m);
    if (from === 'owner' && (await tx.count(Membership, { workspace: workspaceId, role: 'owner' })) <= 1) {
      throw LAST_OWNER('be demoted');
    }
    m.role = input.role;
    await tx.flush();
    await revokeTokensBeyondRole(tx, workspaceId, input.userId, input.role);
    // A role that may not invite leaves no invitation standing on the person's say (an admin's, accepted later, made an admin).
    if (!scopesOfRole(input.role).includes('members:write')) await withdrawInvitesBy(tx, workspaceId, input.userId);
    return memberView(m);
  });
}

/**
 * Removes a member, or lets the calling person leave (no scope needed for that). An owner is removed
 * only by an owner (or a token with account:admin); the last owner can neither leave nor be removed.
 * Every token the person made in this workspace is revoked with the membership.
 */
export async function removeMember(em: EntityManager, actor: Actor, userId: string): Promise<void> {
  const workspaceId = workspaceIdOf(actor);
  const leaving = actor.type === 'user' && actor.user.id === userId;
  if (!leaving && !actor.scopes.includes('members:write')) {
    throw scopeMissing(
      'members:write',
      'ask a workspace owner for a role or token that has it (you may remove only yourself without it)',
    );
  }
  await em.transactional(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    if (!leaving) await checkStillEntitled(tx, actor, workspaceId, ['members:write']);
    const m = await findMember(tx, workspaceId, userId);
    if (m.role === 'owner') {
      if (!(await canManageOwners(tx, actor))) throw OWNERS_ONLY('remove an owner');
      if ((await tx.count(Membership, { workspace: workspaceId, role: 'owner' })) <= 1) {
        throw LAST_OWNER(leaving ? 'leave' : 'be removed');
      }
    }
    await tx.nativeDelete(Membership, { workspace: workspaceId, user: userId });
    await revokeMemberTokens(tx, workspaceId, userId);
    // Their pending invitations go with them: one accepted later let an address in on a removed member's say.
    await withdrawInvitesBy(tx, workspaceId, userId);
  });
}

/** Withdraws the pending invitations the person made in the workspace. */
async function withdrawInvitesBy(tx: EntityManager, workspaceId: string, userId: string): Promise<void> {
  await tx.execute(
    'update invites set withdrawn_at = now() where workspace_id = ? and invited_by = ? and accepted_at is null and withdrawn_at is null',
    [workspaceId, userId],
  );
}
