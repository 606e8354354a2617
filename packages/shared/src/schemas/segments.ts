// Request and answer schemas of segments (issue 40 item 8: not in the spec; the design is ours,
// docs/product/segments-and-annotations.md): named sets of the dashboard's filters, saved per site and shared
// by everyone who can see the site; stats routes and tools apply one by name (`segment=`).
import { z } from 'zod';
import { zId } from './common.ts';

export const SEGMENT_LIMITS = {
  perSite: 50,
  name: 100,
  /** As many filters as the dashboard holds at once. */
  filters: 6,
  value: 2048,
} as const;

const zSegmentName = z
  .string()
  .trim()
  .min(1, 'Give the segment a name')
  .max(SEGMENT_LIMITS.name, `Use at most ${SEGMENT_LIMITS.name} characters`);

const zFilters = z
  .record(
    z.string().regex(/^[a-z_]{1,40}$/, 'Name a dimension of the catalogue (GET /v1/stats/catalogue), such as country'),
    z
      .string()
      .trim()
      .min(1, 'Give the value to keep, or (none) for rows without one')
      .max(SEGMENT_LIMITS.value, `Use at most ${SEGMENT_LIMITS.value} characters`),
  )
  .refine((f) => Object.keys(f).length >= 1, 'Give at least one filter')
  .refine((f) => Object.keys(f).length <= SEGMENT_LIMITS.filters, `Give at most ${SEGMENT_LIMITS.filters} filters`)
  .describe('Dimension → value, as the dashboard’s filters (where.<dimension>=<value>; `(none)`: rows without a value)');

export const Segment = z.object({
  id: z.string(),
  name: z.string(),
  filters: z.record(z.string(), z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Segment = z.infer<typeof Segment>;

export const SegmentList = z.object({ segments: z.array(Segment) });
export const SegmentOutput = z.object({ segment: Segment });

export const CreateSegmentInput = z.object({ id: zId, name: zSegmentName, filters: zFilters }).strict();
export type CreateSegmentInput = z.infer<typeof CreateSegmentInput>;

const zSegmentId = z.string().min(1).max(64).describe('The segment id (from GET /v1/sites/{id}/segments)');

export const SegmentParams = z.object({ id: zId, segment: zSegmentId }).strict();
export type SegmentParams = z.infer<typeof SegmentParams>;

export const UpdateSegmentInput = z
  .object({ id: zId, segment: zSegmentId, name: zSegmentName.optional(), filters: zFilters.optional() })
  .strict()
  .refine((x) => x.name !== undefined || x.filters !== undefined, { message: 'Give name, filters or both', path: ['name'] });
export type UpdateSegmentInput = z.infer<typeof UpdateSegmentInput>;

/** The `segment` parameter of the stats routes and tools. */
export const zSegmentParam = z
  .string()
  .trim()
  .min(1)
  .max(SEGMENT_LIMITS.name)
  .optional()
  .describe('A saved segment of the site, by name or id: its filters apply as where.<dimension> (a where given too wins)');
