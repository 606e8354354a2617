import {
  SearchInput,
  SearchOutput,
  SearchWeeksOutput,
  SearchWeeksQuery,
  UpdatePrimarySearchInput,
  UpdateSecondarySearchInput,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { deleteSource, getSearch, updatePrimary, updateSecondary } from './connections.ts';
import { searchWeeks } from './weeks.ts';

const tags = ['Search'];

/** DELETE …/search/primary and …/secondary: one shape, two sources. */
function disconnect(source: 'primary' | 'secondary', tool: string, provider: string, what: string) {
  return actorProcedure
    .meta({
      auth: 'any',
      scope: 'search:write',
      status: 204,
      idempotent: true,
      destructive: true,
      mcp: {
        tool,
        description: `Disconnect ${provider}: ${what} deleted; weeks already collected stay. 404 when not connected.`,
      },
      openapi: {
        method: 'DELETE',
        path: `/v1/sites/{id}/search/${source}`,
        summary: `Disconnect ${provider} (weeks stay)`,
        tags,
      },
    })
    .input(SearchInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteSource(ctx.em, ctx.actor, input.id, source));
}

export const searchRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'search:read',
      mcp: {
        tool: 'get_site_search',
        description:
          'Which search providers the site is connected to: primary (Google Search Console: mode, property, the account used, and `status`: ok, or in delegated mode access-lost / hostname-unverified when pulls are stopped, with `statusMessage` saying what to do) and secondary (Bing Webmaster Tools: site URL), each with how its last daily pull went; and `serviceAccount`, the address a site owner grants access to in Search Console for delegated mode. Credentials are never shown.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/search',
        summary: 'What is connected, and the service account for delegated mode',
        tags,
      },
    })
    .input(SearchInput)
    .output(SearchOutput)
    .query(({ ctx, input }) => getSearch(ctx.deps, ctx.em, ctx.actor, input.id)),

  updatePrimary: actorProcedure
    .meta({
      auth: 'any',
      scope: 'search:write',
      idempotent: true,
      external: true,
      textBlocks: ['key'],
      mcp: {
        tool: 'update_site_search_google',
        description:
          'Connect Google Search Console. mode delegated: grant the serviceAccount of get_site_search access to the property in Search Console first; the property must cover a verified hostname of the site (checked again before every pull). mode service_account: give your own service-account key file (JSON, as text or object, at most 20,000 characters) whose account can read the property; its key must be RSA of 2,048 to 4,096 bits, as Google makes them. property: a URL prefix (https://example.com/) or a domain (sc-domain:example.com). Access is checked with Google before anything is kept; connecting again resumes pulls stopped because access was lost.',
      },
      openapi: {
        method: 'PUT',
        path: '/v1/sites/{id}/search/primary',
        summary: 'Connect Google Search Console (delegated or with a service-account key)',
        description:
          'Refusals: 400 property (not a verified hostname of the site in delegated mode, or no access), 400 key (not a service-account key, an RSA key outside 2,048–4,096 bits or not shaped as Google makes them, an object form past 20,000 characters of JSON, 32 fields or with nested values, or refused by Google), 503 when Google cannot be reached or delegated mode is not offered.',
        tags,
      },
    })
    .input(UpdatePrimarySearchInput)
    .output(SearchOutput)
    .mutation(({ ctx, input }) => updatePrimary(ctx.deps, ctx.em, ctx.actor, input)),

  updateSecondary: actorProcedure
    .meta({
      auth: 'any',
      scope: 'search:write',
      idempotent: true,
      external: true,
      mcp: {
        tool: 'update_site_search_bing',
        description:
          'Connect Bing Webmaster Tools with an API key (Bing Webmaster Tools → Settings → API access) and the site URL as registered and verified there. The key is checked with Bing before it is kept, and never shown again.',
      },
      openapi: {
        method: 'PUT',
        path: '/v1/sites/{id}/search/secondary',
        summary: 'Connect Bing Webmaster Tools with an API key',
        description: 'Refusals: 400 apiKey (refused by Bing), 400 siteUrl (not a verified site of that account).',
        tags,
      },
    })
    .input(UpdateSecondarySearchInput)
    .output(SearchOutput)
    .mutation(({ ctx, input }) => updateSecondary(ctx.deps, ctx.em, ctx.actor, input)),

  deletePrimary: disconnect('primary', 'delete_site_search_google', 'Google Search Console', 'its credentials are'),
  deleteSecondary: disconnect('secondary', 'delete_site_search_bing', 'Bing Webmaster Tools', 'its API key is'),

  weeks: actorProcedure
    .meta({
      auth: 'any',
      scope: 'search:read',
      mcp: {
        tool: 'get_site_search_weeks',
        description:
          'Weekly search figures (weeks start Monday, UTC), one row per week and source (primary: Google Search Console, secondary: Bing Webmaster Tools): clicks, impressions, ctr (0–1), average position, pages and queries shown, inbound links (secondary only). null means not collected; 0 is a measurement. The current week fills in daily. `weeks`: how many weeks back, default 12, at most 104.',
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/search/weeks', summary: 'Weekly search figures per source', tags },
    })
    .input(SearchWeeksQuery)
    .output(SearchWeeksOutput)
    .query(({ ctx, input }) => searchWeeks(ctx.em, ctx.actor, input)),
});
