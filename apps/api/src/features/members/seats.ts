import type { EntityManager } from '@mikro-orm/postgresql';
import { Invite, Membership } from '@us/db';
import { type Plan, planOf, type Role } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';

/** Conditions of a pending invitation: neither accepted nor withdrawn, and not yet expired. */
export function pendingInvite(workspaceId: string, now = new Date()) {
  return { workspace: workspaceId, acceptedAt: null, withdrawnAt: null, expiresAt: { $gt: now } };
}

/** Seats taken against the plan's member allowance: members plus pending invitations (spec §8). */
export async function seatsTaken(em: EntityManager, workspaceId: string): Promise<number> {
  // One after the other: inside a transaction both run on its one connection anyway.
  const members = await em.count(Membership, { workspace: workspaceId });
  return members + (await em.count(Invite, pendingInvite(workspaceId)));
}

/**
 * Locks the workspace row until the transaction ends, so changes that count rows (member allowance,
 * owners left) are made one at a time. Returns the row's name and plan.
 */
export async function lockWorkspace(tx: EntityManager, workspaceId: string): Promise<{ name: string; plan: Plan }> {
  const rows = await tx.execute<{ name: string; plan: string }[]>('select name, plan from workspaces where id = ? for update', [
    workspaceId,
  ]);
  const row = rows[0];
  if (!row) throw new AppError(404, 'This workspace no longer exists: choose another workspace');
  return { name: row.name, plan: planOf(row.plan) };
}

/**
 * Spec §5 item 5: only an owner (or a token holding account:admin) makes, changes or removes an owner.
 * Admins hold account:admin too, so a token counts only while its maker is still an owner here:
 * otherwise an admin could mint an account:admin token and make themselves owner.
 */
export async function canManageOwners(em: EntityManager, actor: Actor): Promise<boolean> {
  // Read again (callers hold the workspace's lock): the role the request began with may be gone, an owner demoted
  // meanwhile by another owner could otherwise still remove or demote a third.
  if (actor.type === 'user') {
    const me = await em.findOne(Membership, { workspace: actor.workspaceId, user: actor.user.id });
    return me?.role === 'owner';
  }
  if (actor.type === 'share' || !actor.scopes.includes('account:admin')) return false;
  const maker = await em.findOne(Membership, { workspace: actor.workspaceId, user: actor.token.createdBy.id });
  return maker?.role === 'owner';
}

export const asRole = (stored: string) => stored as Role;
