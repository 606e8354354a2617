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
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { createSite, deleteSite, getSite, installStatus, listSites, snippet, updateSite } from './sites.ts';

const tags = ['Sites'];

export const sitesRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_sites',
        description:
          "Every site of the workspace (or of this token's site restriction) with ids, hostnames and settings. Most site and stats tools need a site `id` from here.",
      },
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
      mcp: {
        tool: 'create_site',
        description:
          "Create a site. `name`; `timezone`: an IANA zone (days in stats follow it); `hostnames`: where the page script may report from. Answers the site and its public key (the page script's data-site).",
      },
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
    .mutation(({ ctx, input }) => createSite(ctx.deps, ctx.em, ctx.actor, input)),

  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'get_site',
        description: 'One site by `id`: name, time zone, hostnames, settings, retention.',
      },
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
      // `retentionDays` deletes the analytics older than them (MCP's destructiveHint: clients ask first).
      destructive: true,
      mcp: {
        tool: 'update_site',
        description:
          'Rename a site or change its `timezone` or `retentionDays` (1-3650 days of analytics kept; null keeps everything). `id` names the site.',
      },
      openapi: { method: 'PATCH', path: '/v1/sites/{id}', summary: 'Rename a site or change its time zone', tags },
    })
    .input(UpdateSiteInput)
    .output(SiteOutput)
    .mutation(({ ctx, input }) => updateSite(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      external: true,
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site',
        description:
          'Delete a site by `id` with all its keys, hostnames and settings; its keys stop at once and proxy hostnames are released. Its analytics can no longer be read.',
      },
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
      mcp: {
        tool: 'get_site_install_status',
        description:
          "Whether a page with the snippet has reported yet (`installed`, `lastSeenAt`), whether the snippet needs a new public key (`needsPublicKey`: the site's was deleted), and what the collector dropped or set aside in the last seven days. Use it to check an installation.",
      },
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
      mcp: {
        tool: 'get_site_snippet',
        description:
          "The script tag to paste into the site's pages (`html`), with its address (the site's own build: the parts its settings name in scriptFeatures), its size in bytes (`script`) and the public key. A site without a public key (deleted) has no snippet: an error says to create one first (create_site_key with kind public).",
      },
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
