import {
  AnnotationList,
  AnnotationListQuery,
  AnnotationOutput,
  AnnotationParams,
  CreateAnnotationInput,
  UpdateAnnotationInput,
} from '@us/shared';
import { z } from 'zod';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { createAnnotation, deleteAnnotation, listAnnotations, updateAnnotation } from './annotations.ts';

const tags = ['Annotations'];

export const annotationsRouter = router({
  list: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:read',
      mcp: {
        tool: 'list_site_annotations',
        description:
          "The site's chart annotations, newest day first: id, day (YYYY-MM-DD) and text. `from`/`to` bound the days; `limit` (default 100, at most 500) and `cursor` (the answer's `next`) page through them.",
      },
      openapi: { method: 'GET', path: '/v1/sites/{id}/annotations', summary: 'The site’s chart annotations', tags },
    })
    .input(AnnotationListQuery)
    .output(AnnotationList)
    .query(({ ctx, input }) => listAnnotations(ctx.em, ctx.actor, input)),

  create: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 201,
      mcp: {
        tool: 'create_site_annotation',
        description:
          'Mark a day on the site’s chart (`id` of the site, `day` YYYY-MM-DD in the site’s calendar, `text` up to 280 characters), e.g. a deploy or a campaign launch. A site keeps at most 1,000.',
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/annotations',
        summary: 'Mark a day on the chart with a short text',
        description: 'A site keeps at most 1,000 annotations (409 past them).',
        tags,
      },
    })
    .input(CreateAnnotationInput)
    .output(AnnotationOutput)
    .mutation(({ ctx, input }) => createAnnotation(ctx.em, ctx.actor, input)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_annotation',
        description:
          'Change an annotation (`id` of the site, `annotation`: its id from list_site_annotations): its `day`, its `text`, or both.',
      },
      openapi: {
        method: 'PATCH',
        path: '/v1/sites/{id}/annotations/{annotation}',
        summary: 'Change an annotation’s day or text',
        tags,
      },
    })
    .input(UpdateAnnotationInput)
    .output(AnnotationOutput)
    .mutation(({ ctx, input }) => updateAnnotation(ctx.em, ctx.actor, input)),

  delete: actorProcedure
    .meta({
      auth: 'any',
      scope: 'sites:write',
      idempotent: true,
      status: 204,
      mcp: {
        tool: 'delete_site_annotation',
        description: 'Remove an annotation (`id` of the site, `annotation`: its id from list_site_annotations).',
      },
      openapi: { method: 'DELETE', path: '/v1/sites/{id}/annotations/{annotation}', summary: 'Remove an annotation', tags },
    })
    .input(AnnotationParams)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAnnotation(ctx.em, ctx.actor, input)),
});
