import { CreateSegmentInput, SegmentList, SegmentOutput, SegmentParams, SiteIdInput, UpdateSegmentInput } from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { createSegment, deleteSegment, listSegments, updateSegment } from './segments.ts';

const tags = ['Segments'];
const FILTERS =
  '`filters`: dimension → value, as the dashboard’s filters (1 to 6; dimensions of GET /v1/stats/catalogue such as country, page, source; `(none)` for rows without a value)';

export const segmentsRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_segments',
        description:
          "The site's saved segments: id, name and filters. Pass a segment's name as `segment` to get_site_stats, query_site_stats, get_site_summary, get_site_top or get_site_funnel_results to apply its filters.",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/segments', summary: 'The site’s saved segments', tags },
    })
    .input(SiteIdInput)
    .output(SegmentList)
    .query(({ ctx, input }) => listSegments(ctx.em, ctx.actor, input.id)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_segment',
        description: `Save a named set of filters on a site (\`id\` of the site, \`name\`, ${FILTERS}), shared with everyone who sees the site. A site keeps at most 50; a name is unique on its site in any case (409).`,
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/segments',
        summary: 'Save a segment: a name and the filters it applies',
        description:
          'Stats routes and tools take `segment=<name or id>` and apply its filters (a where.<dimension> given too wins). A site keeps at most 50 segments (409 past them); a name already used on the site, in any case, is 409.',
        tags,
      },
    })
    .input(CreateSegmentInput)
    .output(SegmentOutput)
    .mutation(({ ctx, input }) => createSegment(ctx.em, ctx.actor, input)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_segment',
        description: `Change a segment (\`id\` of the site, \`segment\`: its id from list_site_segments): its \`name\`, its ${FILTERS}, or both.`,
      },
      openapi: {
        method: 'PATCH',
        path: '/v1/sites/{id}/segments/{segment}',
        summary: 'Change a segment’s name or filters',
        tags,
      },
    })
    .input(UpdateSegmentInput)
    .output(SegmentOutput)
    .mutation(({ ctx, input }) => updateSegment(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_segment',
        description: 'Remove a segment (`id` of the site, `segment`: its id from list_site_segments). The traffic stays.',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/segments/{segment}', summary: 'Remove a segment', tags },
    })
    .input(SegmentParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteSegment(ctx.em, ctx.actor, input)),
});
