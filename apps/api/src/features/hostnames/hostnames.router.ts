import { CreateHostnameInput, HostnameDetail, SiteHostnameParams, VerifyHostnameOutput } from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import * as hostnames from './hostnames.ts';

const tags = ['Sites'];

/** Spec §4 Sites: a site's hostnames, their DNS verification, and proxy mode (built-in ingress or an edge platform). */
export const hostnamesRouter = router({
  create: actorProcedure
    .meta({
      external: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_hostname',
        description:
          "Add a hostname to a site (`id`, `hostname`). With `proxy: true` and `origin` it is served through the proxy once live (answer lists the CNAME and TXT records to add). Reports are accepted only from a site's hostnames.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/hostnames',
        summary:
          'Add a hostname to a site; with proxy true (and origin) it is served through the proxy, and the answer lists the DNS records to set',
        tags,
      },
    })
    .input(CreateHostnameInput)
    .output(HostnameDetail)
    .mutation(({ ctx, input }) => hostnames.addHostname(ctx.deps, ctx.em, ctx.actor, input)),

  get: actorProcedure
    .meta({
      external: true,
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'get_site_hostname',
        description:
          'One hostname of a site (`id`, `hostname`): whether it is verified, its DNS TXT record to add, and for proxy mode its live status and the DNS records still needed.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/hostnames/{hostname}',
        summary: 'One hostname of a site, with the live proxy status and the DNS records still needed for a proxy-mode hostname',
        tags,
      },
    })
    .input(SiteHostnameParams)
    .output(HostnameDetail)
    .query(({ ctx, input }) => hostnames.getHostname(ctx.deps, ctx.em, ctx.actor, input)),

  verify: actorProcedure
    .meta({
      external: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'verify_site_hostname',
        description:
          "Check a hostname's DNS records now (`id`, `hostname`): its TXT record, and for a proxy-mode hostname also its CNAME to the proxy (it goes live when both are there); answers `verified` or a message saying what is missing. At most 30 checks per hour per site.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/hostnames/{hostname}/verify',
        summary:
          'Check the TXT record _svc.<hostname> now, for a proxy-mode hostname also its CNAME to the proxy (30 checks per hour per site); when not found, says which record to add',
        tags,
      },
    })
    .input(SiteHostnameParams)
    .output(VerifyHostnameOutput)
    .mutation(({ ctx, input }) => hostnames.verifyHostname(ctx.deps, ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      external: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_hostname',
        description:
          'Remove a hostname from a site (`id`, `hostname`); a proxy hostname registered at an edge platform is released there too.',
      },
      openapi: {
        method: 'DELETE',
        path: '/v1/sites/{id}/hostnames/{hostname}',
        summary: 'Remove a hostname from a site (a proxy-mode hostname also at the edge platform)',
        tags,
      },
    })
    .input(SiteHostnameParams)
    .output(z.void())
    .mutation(({ ctx, input }) => hostnames.removeHostname(ctx.deps, ctx.em, ctx.actor, input)),
});
