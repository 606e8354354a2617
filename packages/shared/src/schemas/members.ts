// Request and answer schemas of this resource (spec §2 and §4).
import { z } from 'zod';
import { zEmail, zId, zRole, zTimestamp } from './common.ts';

/** Roles an invitation may grant: owners are made from members, never invited. */
export const INVITE_ROLES = ['admin', 'member', 'viewer'] as const;
export const zInviteRole = z.enum(INVITE_ROLES);
export type InviteRole = z.infer<typeof zInviteRole>;

export const Member = z.object({
  userId: zId,
  email: z.string(),
  role: zRole,
  twoFactor: z.boolean(),
  joinedAt: zTimestamp,
});
export type Member = z.infer<typeof Member>;

export const Invite = z.object({
  id: zId,
  email: z.string(),
  role: zRole,
  createdAt: zTimestamp,
  expiresAt: zTimestamp,
});
export type Invite = z.infer<typeof Invite>;

export const MemberList = z.object({
  members: z.array(Member),
  invites: z.array(Invite).describe('Pending invitations (not accepted, withdrawn or expired)'),
});
export type MemberList = z.infer<typeof MemberList>;

export const CreateInviteInput = z.object({ email: zEmail, role: zInviteRole }).strict();
export type CreateInviteInput = z.infer<typeof CreateInviteInput>;
export const CreateInviteOutput = z.object({ invite: Invite });

export const InviteIdInput = z.object({ id: zId }).strict();

export const AcceptInviteInput = z.object({ token: z.string().min(1).max(512) }).strict();
export const AcceptInviteOutput = z.object({ workspaceId: zId, role: zRole });

export const MemberIdInput = z.object({ userId: zId }).strict();
export const UpdateMemberInput = z.object({ userId: zId, role: zRole }).strict();
export type UpdateMemberInput = z.infer<typeof UpdateMemberInput>;
