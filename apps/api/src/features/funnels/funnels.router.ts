import {
  CreateFunnelInput,
  FunnelList,
  FunnelOutput,
  FunnelParams,
  FunnelResults,
  FunnelResultsQuery,
  SiteIdInput,
  UpdateFunnelInput,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { siteFunnelResults } from './funnel-results.ts';
import { createFunnel, deleteFunnel, listFunnels, updateFunnel } from './funnels.ts';

const tags = ['Funnels'];
const STEPS =
  '`steps`: 2 to 8 of `{ type: page, match: a path such as /pricing or /blog/* }` or `{ type: event, match: an event name }`, in the order a visitor takes them';

export const funnelsRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_funnels',
        description: "The site's funnels: id, name and ordered steps (a page path or an event name each).",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/funnels', summary: 'The site’s funnels', tags },
    })
    .input(SiteIdInput)
    .output(FunnelList)
    .query(({ ctx, input }) => listFunnels(ctx.em, ctx.actor, input.id)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_funnel',
        description: `Save a funnel on a site (\`id\` of the site, \`name\`, ${STEPS}). A site keeps at most 20 funnels.`,
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/funnels',
        summary: 'Save a funnel: 2 to 8 ordered steps, each a page or an event',
        description:
          'A page step matches a page path (a trailing * matches every path starting with the rest); an event step an event name. A site keeps at most 20 funnels (409 past them). Funnels read stored traffic, so earlier sessions count too.',
        tags,
      },
    })
    .input(CreateFunnelInput)
    .output(FunnelOutput)
    .mutation(({ ctx, input }) => createFunnel(ctx.em, ctx.actor, input)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_funnel',
        description: `Change a funnel (\`id\` of the site, \`funnel\`: its id from list_site_funnels): its \`name\`, its ${STEPS}, or both.`,
      },
      openapi: { method: 'PATCH', path: '/v1/sites/{id}/funnels/{funnel}', summary: 'Change a funnel’s name or steps', tags },
    })
    .input(UpdateFunnelInput)
    .output(FunnelOutput)
    .mutation(({ ctx, input }) => updateFunnel(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_funnel',
        description: 'Remove a funnel (`id` of the site, `funnel`: its id from list_site_funnels). The traffic stays.',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/funnels/{funnel}', summary: 'Remove a funnel', tags },
    })
    .input(FunnelParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteFunnel(ctx.em, ctx.actor, input)),

  results: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      mcp: {
        tool: 'get_site_funnel_results',
        description:
          'How People moved through a funnel (`funnel`: its id from list_site_funnels) over `days` (1-90, default 7): per step the visitors and sessions reaching it after the steps before it within one session, the conversion from the first step (percent), the drop-off from the step before and the median seconds between them. Steps reached by fewer than 5 visitors, and those after them, are listed without figures.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/funnels/{funnel}/results',
        summary:
          'Per step: visitors and sessions reaching it in order, conversion, drop-off and the median time from the step before',
        description:
          'A session is a People visit: one visitor code from a session start to the next, within one UTC day; a visitor is a visitor-day (codes rotate daily). A step counts at its first match after the step before was reached. Steps under 5 visitors, and the steps after them, have null figures. An unknown funnel is 404.',
        tags,
      },
    })
    .input(FunnelResultsQuery)
    .output(FunnelResults)
    .query(({ ctx, input }) => siteFunnelResults(ctx.deps, ctx.em, ctx.actor, input)),
});
