// Request and answer schemas of annotations (issue 40 item 8: not in the spec; the design is ours,
// docs/product/segments-and-annotations.md): a day and a short text on a site's chart, from the dashboard, REST
// or MCP (an agent can mark its deploys).
import { z } from 'zod';
import { FIRST_DAY, isDay, LAST_DAY } from '../days.ts';
import { zId } from './common.ts';

export const ANNOTATION_LIMITS = {
  perSite: 1000,
  text: 280,
  defaultPage: 100,
  maxPage: 500,
} as const;

const zDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Give a day as YYYY-MM-DD')
  .refine(isDay, { message: `Give a day of the calendar from ${FIRST_DAY} to ${LAST_DAY} (YYYY-MM-DD)` });

const zText = z
  .string()
  .trim()
  .min(1, 'Give the annotation a text')
  .max(ANNOTATION_LIMITS.text, `Use at most ${ANNOTATION_LIMITS.text} characters`);

export const Annotation = z.object({
  id: z.string(),
  day: z.string().describe('YYYY-MM-DD, a day of the site’s calendar'),
  text: z.string(),
  createdAt: z.string(),
});
export type Annotation = z.infer<typeof Annotation>;

export const AnnotationListQuery = z
  .object({
    id: zId,
    from: zDay.optional().describe('First day (YYYY-MM-DD), inclusive'),
    to: zDay.optional().describe('Last day (YYYY-MM-DD), inclusive'),
    limit: z
      .number()
      .int()
      .min(1, 'Give limit of 1 or more')
      .max(ANNOTATION_LIMITS.maxPage, `Give limit of at most ${ANNOTATION_LIMITS.maxPage}`)
      .optional()
      .describe(`Most annotations returned (default ${ANNOTATION_LIMITS.defaultPage})`),
    cursor: z.string().max(200).optional().describe('`next` of the previous page'),
  })
  .strict();
export type AnnotationListQuery = z.infer<typeof AnnotationListQuery>;

export const AnnotationList = z.object({
  annotations: z.array(Annotation).describe('Newest day first'),
  next: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});

export const AnnotationOutput = z.object({ annotation: Annotation });

export const CreateAnnotationInput = z.object({ id: zId, day: zDay, text: zText }).strict();
export type CreateAnnotationInput = z.infer<typeof CreateAnnotationInput>;

const zAnnotationId = z.string().min(1).max(64).describe('The annotation id (from GET /v1/sites/{id}/annotations)');

export const AnnotationParams = z.object({ id: zId, annotation: zAnnotationId }).strict();
export type AnnotationParams = z.infer<typeof AnnotationParams>;

export const UpdateAnnotationInput = z
  .object({ id: zId, annotation: zAnnotationId, day: zDay.optional(), text: zText.optional() })
  .strict()
  .refine((x) => x.day !== undefined || x.text !== undefined, { message: 'Give day, text or both', path: ['text'] });
export type UpdateAnnotationInput = z.infer<typeof UpdateAnnotationInput>;
