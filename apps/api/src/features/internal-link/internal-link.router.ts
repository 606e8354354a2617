import { InternalLinkInput, InternalLinkOutput, InternalLinkRotateInput, InternalLinkRotateOutput } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { issueInternalLink, rotateInternalKey } from './links.ts';

const tags = ['Sites'];

/** Spec §4 Sites: the link that marks a team member's browser as internal traffic, and its key rotation. */
export const internalLinkRouter = router({
  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'internal_link_site',
        description:
          "A link (valid ten minutes, once per browser) that marks the browser opening it as the site owner's team, so its visits count as internal. `hostname` must be verified or active in proxy mode.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/internal-link',
        summary:
          "A link on a verified hostname's /_us/ path that marks a browser as the team's own for 90 days; valid ten minutes, once per browser",
        tags,
      },
    })
    .input(InternalLinkInput)
    .output(InternalLinkOutput)
    .mutation(({ ctx, input }) => issueInternalLink(ctx.deps, ctx.em, ctx.actor, input)),

  rotate: actorProcedure
    .meta({
      destructive: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'rotate_site_internal_link',
        description:
          "Replace the site's internal key: browsers marked before stop counting as internal, unused links stop working.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/internal-link/rotate',
        summary: 'Replace the internal key: browsers marked before stop counting as internal',
        tags,
      },
    })
    .input(InternalLinkRotateInput)
    .output(InternalLinkRotateOutput)
    .mutation(({ ctx, input }) => rotateInternalKey(ctx.deps, ctx.em, ctx.actor, input)),
});
