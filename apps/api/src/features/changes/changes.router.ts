import { Changes, ChangesQuery } from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { siteChanges } from './changes.ts';

export const changesRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'analytics:read',
      mcp: {
        tool: 'get_site_changes',
        description:
          'What changed? For this period (`days`, default 7, or `from`/`to`) against the one before it (or `compareFrom`/`compareTo`): the total of visits (default), pageviews or a goal’s completions (`metric=goal`, `goal`: its id) in both, and the source, referrer, medium, campaign, page, country and device values that explain most of the change, each said in words ("+1,240 visits from google"). Filters (`where.<dimension>`) and a saved `segment` apply to both periods.',
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/changes',
        summary: 'What changed: the values that explain most of the change between two periods',
        description:
          'Each dimension is read for both periods (its 1,000 largest values); a value is a driver by its change, largest first, with its share of the total change. A goal matching many pages (ending in *) is 400.',
        tags: ['Stats'],
      },
    })
    .input(ChangesQuery)
    .output(Changes)
    .query(({ ctx, input }) => siteChanges(ctx.deps, ctx.em, ctx.actor, input)),
});
