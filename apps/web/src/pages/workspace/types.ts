import type { RouterOutputs } from '@us/api';

/** Answer types of the workspace pages' API calls. */
export type WorkspaceInfo = RouterOutputs['workspace']['get'];
export type MemberList = RouterOutputs['members']['list'];
export type Member = MemberList['members'][number];
export type Invite = MemberList['invites'][number];
export type Role = Member['role'];
export type TokenEntry = RouterOutputs['tokens']['list']['tokens'][number];
export type CreatedToken = RouterOutputs['tokens']['create'];
export type SiteSummary = RouterOutputs['sites']['list']['sites'][number];

/** Roles an invitation may grant (owners are made from members, never invited). */
export const INVITE_ROLES = ['admin', 'member', 'viewer'] as const satisfies readonly Role[];
export const ALL_ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly Role[];
export type InviteRole = (typeof INVITE_ROLES)[number];
