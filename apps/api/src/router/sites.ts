import {
  CreateSiteInput,
  CreateSiteOutput,
  InstallStatusOutput,
  SiteIdInput,
  SiteList,
  SiteOutput,
  SnippetOutput,
  UpdateSiteInput,
  zEmpty,
} from '@us/shared';
import { z } from 'zod';
import { createSite, deleteSite, getSite, installStatus, listSites, snippet, updateSite } from '../services/sites/sites.ts';
import { router } from '../trpc/init.ts';
import { actorProcedure } from '../trpc/procedures.ts';

const tags = ['Sites'];

export const sitesRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: { tool: 'list_sites' },
      openapi: {
        method: 'GET',
        path: '/v1/sites',
        summary: 'List the workspace’s sites with their hostnames and settings',
        description: 'Oldest first. A site-restricted token sees only its own sites.',
        tags,
      },
    })
    .input(zEmpty.optional())
    .output(SiteList)
    .query(({ ctx }) => listSites(ctx.em, ctx.actor)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      noRestricted: true,
      idempotent: true,
      status: 201,
      mcp: { tool: 'create_site' },
      openapi: {
        method: 'POST',
        path: '/v1/sites',
        summary: 'Create a site with its hostnames and public key',
        description:
          'Counts against the plan’s site allowance (Free 5, Starter 20; past it 402). Each hostname gets a TXT record to verify it; timezone defaults to UTC.',
        tags,
      },
    })
    .input(CreateSiteInput)
    .output(CreateSiteOutput)
    .mutation(({ ctx, input }) => createSite(ctx.em, ctx.actor, input)),

  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: { tool: 'get_site' },
      openapi: { method: 'GET', path: '/v1/sites/{id}', summary: 'One site with its hostnames and settings', tags },
    })
    .input(SiteIdInput)
    .output(SiteOutput)
    .query(({ ctx, input }) => getSite(ctx.em, ctx.actor, input.id)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: { tool: 'update_site' },
      openapi: { method: 'PATCH', path: '/v1/sites/{id}', summary: 'Rename a site or change its time zone', tags },
    })
    .input(UpdateSiteInput)
    .output(SiteOutput)
    .mutation(({ ctx, input }) => updateSite(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: { tool: 'delete_site' },
      openapi: {
        method: 'DELETE',
        path: '/v1/sites/{id}',
        summary: 'Delete a site with its hostnames and keys',
        description: 'Its keys stop working at once.',
        tags,
      },
    })
    .input(SiteIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteSite(ctx.deps, ctx.em, ctx.actor, input.id)),

  installStatus: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: { tool: 'get_site_install_status' },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/install-status',
        summary: 'Whether a page with the snippet has been viewed',
        description: 'The site is stamped at most once a minute when a page with the snippet is viewed.',
        tags,
      },
    })
    .input(SiteIdInput)
    .output(InstallStatusOutput)
    .query(({ ctx, input }) => installStatus(ctx.deps, ctx.em, ctx.actor, input.id)),

  snippet: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: { tool: 'get_site_snippet' },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/snippet',
        summary: 'The script tag to paste into the <head> of every page',
        tags,
      },
    })
    .input(SiteIdInput)
    .output(SnippetOutput)
    .query(({ ctx, input }) => snippet(ctx.deps, ctx.em, ctx.actor, input.id)),
});
