import { Journeys, JourneysQuery } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { siteJourneys } from './service.ts';

export const journeysRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      mcp: {
        tool: 'get_site_journeys',
        description:
          "How visitors move through a site: visits and goal rates, a session flow of the first 5 steps (a Sankey: nodes and links), the most common paths with each goal's rate and lift, and every A/B test's variants. `zoom`: page (full path), section (first path segment, default) or element (clicked elements); `who`: human (default) or internal; `days` (default 7, at most 90); `anchor` centres the flow on sessions reaching that step (steps -2..+2). Groups of fewer than 5 sessions are never named: they appear as (other) or without figures.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/journeys',
        summary: 'Visits and goal rates, session flow, common paths with goal lift, every A/B test',
        description:
          'A session is the pageviews of one daily visitor code from a visit start to the next. Groups of fewer than 5 sessions are never named: flow steps fold into (other), paths are not listed, experiment variants have null figures.',
        tags: ['Behaviour'],
      },
    })
    .input(JourneysQuery)
    .output(Journeys)
    .query(({ ctx, input }) => siteJourneys(ctx.deps, ctx.em, ctx.actor, input)),
});
