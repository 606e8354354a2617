import {
  CreateShareLinkInput,
  OpenShareInput,
  OpenShareOutput,
  RevokeShareLinkInput,
  RevokeShareLinkOutput,
  ShareLinkOutput,
  ShareLinksInput,
  ShareLinksOutput,
  TakeOverShareLinkInput,
} from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure, publicProcedure } from '../../procedures/procedures.ts';
import { createShareLink, listShareLinks, revokeShareLink, takeOverShareLink } from './links.ts';
import { openShare } from './open.ts';

/**
 * Shared links: a read-only view of one site's dashboard for whoever holds the link. On the dashboard's
 * tRPC face only (no `openapi` or `mcp` meta: the spec's REST routes and MCP tools are fixed). A view's
 * calls carry X-Share-View and reach only the procedures marked `shareable` (stats and the live figure).
 * A token never gets figures through a link it could not read directly: seeing or making links needs
 * `analytics:read` too; revoking one only ends access, so `sites:write` is enough.
 */
export const sharesRouter = router({
  // The list holds the links themselves, and a link opens the figures: analytics:read as well.
  list: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:read'] })
    .input(ShareLinksInput)
    .output(ShareLinksOutput)
    .query(({ ctx, input }) => listShareLinks(ctx.deps, ctx.em, ctx.actor, input.id)),

  create: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'], idempotent: true, status: 201 })
    .input(CreateShareLinkInput)
    .output(ShareLinkOutput)
    .mutation(({ ctx, input }) => createShareLink(ctx.deps, ctx.em, ctx.actor, input)),

  revoke: actorProcedure
    .meta({ auth: 'any', scope: 'sites:write', idempotent: true, destructive: true })
    .input(RevokeShareLinkInput)
    .output(RevokeShareLinkOutput)
    .mutation(({ ctx, input }) => revokeShareLink(ctx.em, ctx.actor, input)),

  /** An owner makes a link theirs: one whose maker left the workspace opens again at the same address. */
  takeOver: actorProcedure
    .meta({ auth: 'any', scope: ['analytics:read', 'sites:write'], idempotent: true })
    .input(TakeOverShareLinkInput)
    .output(ShareLinkOutput)
    .mutation(({ ctx, input }) => takeOverShareLink(ctx.deps, ctx.em, ctx.actor, input)),

  /** Anyone with the link (and its password): a 12-hour view of the site's figures. */
  open: publicProcedure
    .meta({ auth: 'none' })
    .input(OpenShareInput)
    .output(OpenShareOutput)
    .mutation(({ ctx, input }) => openShare(ctx.deps, ctx.em, ctx.req.ip, input)),
});
