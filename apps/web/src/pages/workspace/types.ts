import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@us/api';

/** Answer types of the workspace pages' API calls. */
type Outputs = inferRouterOutputs<AppRouter>;
export type WorkspaceInfo = Outputs['workspace']['get'];
export type MemberList = Outputs['members']['list'];
export type Member = MemberList['members'][number];
export type Invite = MemberList['invites'][number];
export type Role = Member['role'];
export type TokenEntry = Outputs['tokens']['list']['tokens'][number];
export type CreatedToken = Outputs['tokens']['create'];
export type SiteSummary = Outputs['sites']['list']['sites'][number];

/** Roles an invitation may grant (owners are made from members, never invited). */
export const INVITE_ROLES = ['admin', 'member', 'viewer'] as const satisfies readonly Role[];
export const ALL_ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly Role[];
export type InviteRole = (typeof INVITE_ROLES)[number];
