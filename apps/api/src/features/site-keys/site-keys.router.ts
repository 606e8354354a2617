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
          'Create a server secret for the edge worker SDK or proxy mode (`id`, `kind`: secret; the value is in the answer once only), or a new public key for a site whose public key was deleted (`kind`: public; 409 when it has one: rotate it instead).',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/keys',
        summary: 'Create a server secret (sk_live_…, shown only in this answer) or a missing public key',
        description:
          'kind secret: for the edge worker SDK (SVC_SECRET) and the first-party proxy (x-svc-proxy); stored only as a hash. kind public: a new public key for a site whose public key was deleted (409 when the site has one: rotate it); the snippet then carries it.',
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
          "Delete a key (`id`, `keyId`), a server secret or the public key; it stops working at once. Without a public key the site's pages report nothing until a new one is made (create_site_key with kind public) and put in the pages.",
      },
      openapi: {
        method: 'DELETE',
        path: '/v1/sites/{id}/keys/{keyId}',
        summary: 'Delete a key (a server secret or the public key); it stops working at once',
        description:
          'After the public key is deleted, page reports carrying it are refused as an unknown key, and the snippet and install status say a new public key is needed: create one with POST /v1/sites/{id}/keys (kind public). To replace a key without a gap, rotate it instead.',
        tags,
      },
    })
    .input(SiteKeyParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteKey(ctx.em, ctx.actor, input)),
});
