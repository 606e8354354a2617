import { CreateSiteKeyInput, SiteIdInput, SiteKeyList, SiteKeyOutput, SiteKeyParams } from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { createKey, deleteKey, listKeys, rotateKey } from './keys.ts';

const tags = ['Site keys'];

export const siteKeysRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_keys',
        description: "The site's keys: its public key (the page script's data-site) and server secrets (shown by prefix only).",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/keys',
        summary: 'The site’s keys: the public key in full, secrets by prefix only',
        tags,
      },
    })
    .input(SiteIdInput)
    .output(SiteKeyList)
    .query(({ ctx, input }) => listKeys(ctx.em, ctx.actor, input.id)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_key',
        description:
          'Create a server secret for the edge worker SDK or proxy mode (`id`, `kind`: secret). The value is in the answer once only.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/keys',
        summary: 'Create a server secret (sk_live_…); its value is shown only in this answer',
        description: 'For the edge worker SDK (SVC_SECRET) and the first-party proxy (x-svc-proxy). Stored only as a hash.',
        tags,
      },
    })
    .input(CreateSiteKeyInput)
    .output(SiteKeyOutput)
    .mutation(({ ctx, input }) => createKey(ctx.em, ctx.actor, input)),

  rotate: actorProcedure
    .meta({
      destructive: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'rotate_site_key',
        description:
          'Replace a key (`id`, `keyId`) with a new one of the same kind; the old one stops working at once (pages using an old public key stop reporting until updated).',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/keys/{keyId}/rotate',
        summary: 'Replace a key with a new one of the same kind; the old one stops working at once',
        description:
          'A new secret’s value is shown only in this answer. A new public key must replace the old one in your pages.',
        tags,
      },
    })
    .input(SiteKeyParams)
    .output(SiteKeyOutput)
    .mutation(({ ctx, input }) => rotateKey(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_key',
        description:
          'Delete a server secret (`id`, `keyId`); it stops working at once. The public key cannot be deleted (rotate it instead).',
      },
      openapi: {
        method: 'DELETE',
        path: '/v1/sites/{id}/keys/{keyId}',
        summary: 'Delete a server secret; it stops working at once',
        description: 'The public key cannot be deleted (409): rotate it instead.',
        tags,
      },
    })
    .input(SiteKeyParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteKey(ctx.em, ctx.actor, input)),
});
