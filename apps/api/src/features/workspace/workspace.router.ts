import { UpdateWorkspaceInput, Workspace, zEmpty } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { getWorkspace, renameWorkspace } from './workspace.ts';

const tags = ['Workspace'];

export const workspaceRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:read',
      mcp: {
        tool: 'get_workspace',
        description:
          "The workspace this token acts in: name, plan, limits and this month's usage (human pageviews, server requests, members). Use it to check allowances before heavy work.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/workspace',
        summary:
          'The workspace: name, plan, allowances and usage (a site-restricted token sees only its sites and no member count)',
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(Workspace)
    .query(({ ctx }) => getWorkspace(ctx.em, ctx.actor)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'members:write',
      noRestricted: true,
      idempotent: true,
      mcp: {
        tool: 'update_workspace',
        description: 'Rename the workspace the token acts in (its members see the new name at once). `name`: 1-80 characters.',
      },
      openapi: { method: 'PATCH', path: '/v1/workspace', summary: 'Rename the workspace', tags },
    })
    .input(UpdateWorkspaceInput)
    .output(Workspace)
    .mutation(({ ctx, input }) => renameWorkspace(ctx.em, ctx.actor, input)),
});
