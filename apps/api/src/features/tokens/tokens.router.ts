import { CreateTokenInput, CreateTokenOutput, TokenEndpointsOutput, TokenIdInput, TokenListOutput, zEmpty } from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure, publicProcedure } from '../../procedures/procedures.ts';
import { createToken } from './create.ts';
import { deleteToken } from './delete.ts';
import { tokenEndpoints } from './endpoints.ts';
import { listTokens } from './list.ts';

const tags = ['Tokens'];

export const tokensRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'tokens:read',
      mcp: {
        tool: 'list_tokens',
        description:
          'API tokens of the workspace (names, scopes, site restriction, expiry; never the secret). A site-restricted caller sees only tokens within its sites.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/tokens',
        summary: 'List the workspace’s API tokens (never their secrets)',
        description:
          'Tokens that are not revoked, newest first; expired ones stay listed until deleted. A site-restricted token sees only tokens within its own sites.',
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(TokenListOutput)
    .query(({ ctx }) => listTokens(ctx.em, ctx.actor)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'tokens:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_token',
        description:
          "Create an API token. `name`; `scopes`: a subset of this token's own scopes; `siteIds`: restrict it to these sites (omit for all); `expiresAt`: ISO time (omit for none). The secret is in the answer once and never again: keep it.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/tokens',
        summary: 'Create an API token; its secret is shown only in this answer',
        description:
          'You can only give scopes you hold, and (for a site-restricted token) only your own sites. A token made by a token is revoked with it.',
        tags,
      },
    })
    .input(CreateTokenInput)
    .output(CreateTokenOutput)
    .mutation(({ ctx, input }) => createToken(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'tokens:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_token',
        description: 'Revoke an API token by `id`, and every token made with it. The caller must hold every scope of that token.',
      },
      openapi: {
        method: 'DELETE',
        path: '/v1/tokens/{id}',
        summary: 'Revoke an API token and every token it made',
        description: 'You must hold every scope of the token. A token may delete itself.',
        tags,
      },
    })
    .input(TokenIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteToken(ctx.em, ctx.actor, input.id)),

  /** Dashboard only (no REST route or MCP tool): the addresses a new token's connection snippets are filled with. */
  endpoints: publicProcedure
    .meta({ auth: 'none' })
    .input(zEmpty.optional())
    .output(TokenEndpointsOutput)
    .query(({ ctx }) => tokenEndpoints(ctx.deps)),
});
