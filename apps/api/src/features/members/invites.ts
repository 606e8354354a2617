import type { EntityManager } from '@mikro-orm/postgresql';
import { Invite, Membership, User } from '@us/db';
import { type Invite as InviteOut, type InviteRole, PLAN_LIMITS, type Role } from '@us/shared';
import { isUuid, responsibleUserId, tokenOf, workspaceIdOf } from '../../actor/access.ts';
import type { Actor, PersonActor } from '../../actor/actor.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { requireInvitationBudget, requireMailBudget, returnInvitation } from '../../core/mail/budget.ts';
import { isSuppressed } from '../../core/mail/suppression.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import { emailLink, normaliseEmail } from '../auth/index.ts';
import { inviteMail } from './invite-mail.ts';
import { asRole, lockWorkspace, pendingInvite, seatsTaken } from './seats.ts';

/** Invitations expire 7 days after creation (spec §2, §8). */
export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export function inviteView(row: Invite): InviteOut {
  return {
    id: row.id,
    email: row.email,
    role: asRole(row.role),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** The person an invitation is sent in the name of: the signed-in person, or the maker of the token. */
function inviterOf(actor: Actor): string {
  return responsibleUserId(actor);
}

const STALE_INVITE = () =>
  new AppError(
    404,
    'No such pending invitation in this workspace: it may have been accepted, withdrawn or expired; list them with GET /v1/members',
  );

/**
 * Invites an address: the invitation counts against the plan's member allowance until it is
 * accepted, withdrawn or expires. The e-mail carries a single-use link; only its hash is stored.
 */
export async function createInvite(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { email: string; role: InviteRole },
): Promise<{ invite: InviteOut }> {
  const workspaceId = workspaceIdOf(actor);
  const email = normaliseEmail(input.email);
  const secret = randomToken(32);
  const invitedBy = inviterOf(actor);

  // What the refused or unsent invitation gives back: the budgets are counted inside the transaction, before the row.
  let spent: 'nothing' | 'invitation' | 'invitation and mail' = 'nothing';
  const made = em.transactional(async (tx) => {
    const ws = await lockWorkspace(tx, workspaceId);
    // Under the lock a removal or demotion takes: an inviter who lost the right meanwhile invites no one.
    await checkStillEntitled(tx, actor, workspaceId, ['members:write']);
    if (await tx.count(Membership, { workspace: workspaceId, user: { email } })) {
      throw new AppError(409, `${email} is already a member of this workspace: change their role instead of inviting them`);
    }
    if (await tx.count(Invite, { ...pendingInvite(workspaceId), email })) {
      throw new AppError(
        409,
        `${email} already has a pending invitation: wait for it to be accepted, or withdraw it and invite again`,
      );
    }
    // The address unsubscribed from this workspace's reports (or said no to one): it gets no mail of it.
    if (await isSuppressed(tx, deps.ciphers.mail, workspaceId, email)) {
      throw new AppError(409, `${email} asked not to get e-mail from this workspace: no invitation is sent to it`, {
        field: 'email',
      });
    }
    const limit = PLAN_LIMITS[ws.plan].members;
    if (limit !== null && (await seatsTaken(tx, workspaceId)) >= limit) {
      throw new AppError(
        402,
        `The ${ws.plan} plan allows ${limit} members, pending invitations included: upgrade the plan, or withdraw a pending invitation or remove a member`,
      );
    }
    // Counted once the invitation would go out (an invitation that is refused sends nothing), first
    // the workspace's hourly invitations, then the recipient's mail budget; a refusal rolls back.
    await requireInvitationBudget(deps.hot, workspaceId);
    spent = 'invitation';
    await requireMailBudget(deps.hot, email, 'email');
    spent = 'invitation and mail';
    const row = tx.create(Invite, {
      workspace: workspaceId,
      email,
      role: input.role,
      tokenHash: sha256(secret),
      invitedBy,
      createdByToken: tokenOf(actor),
      expiresAt: new Date(Date.now() + INVITE_TTL_MS),
    });
    await tx.flush();
    return { invite: row, workspaceName: ws.name };
  });
  const { invite, workspaceName } = await made.catch(async (err: unknown) => {
    if (spent !== 'nothing') await returnInvitation(deps.hot, workspaceId, spent === 'invitation and mail' ? email : null);
    throw err;
  });

  const inviter = await em.findOne(User, { id: invitedBy }, { fields: ['email'] });
  try {
    await deps.mailer.send(
      inviteMail({
        to: email,
        workspaceName,
        role: input.role,
        invitedBy: inviter?.email ?? null,
        link: emailLink(deps.urls.app, 'accept-invite', secret),
      }),
    );
  } catch (err) {
    // An invitation nobody received would hold a seat for a week: take it back and say so.
    deps.logger.error('sending the invitation e-mail failed; the invitation was withdrawn', err);
    await em.nativeDelete(Invite, { id: invite.id });
    await returnInvitation(deps.hot, workspaceId, email);
    throw new AppError(503, 'The invitation e-mail could not be sent: try again in a moment');
  }
  return { invite: inviteView(invite) };
}

/** Withdraws a pending invitation; it stops counting against the member allowance at once. */
export async function withdrawInvite(em: EntityManager, actor: Actor, id: string): Promise<void> {
  const workspaceId = workspaceIdOf(actor);
  if (!isUuid(id)) throw STALE_INVITE();
  const n = await em.nativeUpdate(Invite, { ...pendingInvite(workspaceId), id }, { withdrawnAt: new Date() });
  if (n !== 1) throw STALE_INVITE();
}

const UNUSABLE_LINK = () =>
  new AppError(
    404,
    'This invitation is unknown, used, withdrawn, expired, or for another address: sign in with the address it was sent to, or ask for a new invitation',
  );

/**
 * Accepts an invitation: the signed-in person's address must be the invited one (anything else is
 * the same 404 as an unknown link). Single use; the person joins with the invitation's role.
 */
export async function acceptInvite(
  em: EntityManager,
  person: PersonActor,
  token: string,
): Promise<{ workspaceId: string; role: Role }> {
  const now = new Date();
  return em.transactional(async (tx) => {
    const invite = await tx.findOne(Invite, { tokenHash: sha256(token) });
    if (
      !invite ||
      invite.acceptedAt ||
      invite.withdrawnAt ||
      invite.expiresAt <= now ||
      normaliseEmail(invite.email) !== normaliseEmail(person.user.email)
    ) {
      throw UNUSABLE_LINK();
    }
    const workspaceId = invite.workspace.id;
    // One at a time with new invitations: their seat count (members, then pending invitations) must not see this
    // invitation gone and its member not yet there (a Free workspace ended with 3 members of 2).
    await lockWorkspace(tx, workspaceId);
    const used = await tx.nativeUpdate(
      Invite,
      { id: invite.id, acceptedAt: null, withdrawnAt: null, expiresAt: { $gt: now } },
      { acceptedAt: now },
    );
    if (used !== 1) throw UNUSABLE_LINK();
    // Made by someone who is no member any more (removed, left, account deleted): they can no longer let anyone in.
    if (!(await tx.count(Membership, { workspace: workspaceId, user: invite.invitedBy }))) throw UNUSABLE_LINK();
    const existing = await tx.findOne(Membership, { workspace: workspaceId, user: person.user.id });
    if (existing) return { workspaceId, role: asRole(existing.role) };
    tx.create(Membership, { workspace: workspaceId, user: person.user.id, role: invite.role });
    await tx.flush();
    return { workspaceId, role: asRole(invite.role) };
  });
}
