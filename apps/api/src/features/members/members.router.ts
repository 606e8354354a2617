import {
  AcceptInviteInput,
  AcceptInviteOutput,
  CreateInviteInput,
  CreateInviteOutput,
  InviteIdInput,
  Member,
  MemberIdInput,
  MemberList,
  UpdateMemberInput,
  zEmpty,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure, personProcedure } from '../../procedures/procedures.ts';
import { acceptInvite, createInvite, withdrawInvite } from './invites.ts';
import { changeRole, listMembers, removeMember } from './members.ts';

const tags = ['Members'];

export const membersRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:read',
      mcp: {
        tool: 'list_members',
        description:
          "People in the workspace with their roles, and pending invitations. Use it before changing a member's role or removing someone (you need their `userId`).",
      },
      openapi: { method: 'GET', path: '/v1/members', summary: 'Members of the workspace and pending invitations', tags },
    })
    .input(zEmpty.optional())
    .output(MemberList)
    .query(({ ctx }) => listMembers(ctx.em, ctx.actor)),

  createInvite: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:write',
      noRestricted: true,
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_member_invite',
        description:
          "Invite someone by e-mail (`email`, `role`: admin, member or viewer). Pending invitations count against the plan's member limit; the person joins from the link in the mail.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/members/invites',
        summary:
          'Invite an address to join as admin, member or viewer (e-mails a link valid 7 days; counts against the member allowance while pending)',
        tags,
      },
    })
    .input(CreateInviteInput)
    .output(CreateInviteOutput)
    .mutation(({ ctx, input }) => createInvite(ctx.deps, ctx.em, ctx.actor, input)),

  deleteInvite: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:write',
      noRestricted: true,
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_member_invite',
        description: 'Withdraw a pending invitation by its `id` (from list_members). The mailed link stops working.',
      },
      openapi: { method: 'DELETE', path: '/v1/members/invites/{id}', summary: 'Withdraw a pending invitation', tags },
    })
    .input(InviteIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => withdrawInvite(ctx.em, ctx.actor, input.id)),

  acceptInvite: personProcedure
    .meta({
      auth: 'person',
      idempotent: true,
      openapi: {
        method: 'POST',
        path: '/v1/invites/accept',
        summary: 'Accept an invitation from its e-mail link (signed in with the invited address)',
        tags,
      },
    })
    .input(AcceptInviteInput)
    .output(AcceptInviteOutput)
    .mutation(({ ctx, input }) => acceptInvite(ctx.em, ctx.actor, input.token)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:write',
      noRestricted: true,
      idempotent: true,
      mcp: {
        tool: 'update_member',
        description:
          "Change a member's role (`userId`, `role`: owner, admin, member or viewer). Only owners make or change owners; the last owner cannot be demoted. Tokens the person made that exceed the new role are revoked.",
      },
      openapi: {
        method: 'PATCH',
        path: '/v1/members/{userId}',
        summary:
          "Change a member's role (owners only by an owner or an account:admin token; revokes their tokens beyond the new role)",
        tags,
      },
    })
    .input(UpdateMemberInput)
    .output(Member)
    .mutation(({ ctx, input }) => changeRole(ctx.em, ctx.actor, input)),

  remove: actorProcedure
    .meta({
      // No scope in meta: members:write is checked by the service unless a person removes themselves.
      auth: 'any',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_member',
        description:
          'Remove a member (`userId`; a token needs members:write for any id, its maker’s own too: only a signed-in person leaves without it). Revokes every token the person made here; the last owner cannot leave.',
      },
      openapi: {
        method: 'DELETE',
        path: '/v1/members/{userId}',
        summary:
          'Remove a member (needs members:write), or leave the workspace (your own userId, no scope needed); revokes every token they made here',
        tags,
      },
    })
    .input(MemberIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => removeMember(ctx.em, ctx.actor, input.userId)),
});
