// "What changed?" (issue 40 item 7: not in the spec; the design is ours, docs/product/what-changed.md): for two
// periods, the dimension values that explain most of the change in visits, pageviews or a goal's completions.
import { z } from 'zod';
import { zId } from './common.ts';
import { zSegmentParam } from './segments.ts';
import { STATS_LIMITS, zWhereParam } from './stats.ts';

export const CHANGE_METRICS = ['visits', 'pageviews', 'goal'] as const;

export const CHANGE_LIMITS = {
  /** Drivers in the answer. */
  drivers: 10,
  /** Values read per dimension and period: a value below this many others counts as 0 there. */
  valuesPerDimension: STATS_LIMITS.maxRows,
  maxDays: 366,
} as const;

const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Give a day as YYYY-MM-DD');

export const ChangesQuery = z
  .object({
    id: zId,
    metric: z
      .enum(CHANGE_METRICS, { error: 'Use metric visits, pageviews or goal (with goal=<its id>)' })
      .optional()
      .describe('What to explain: visits (default), pageviews, or a goal’s completions (with `goal`)'),
    goal: z.string().min(1).max(64).optional().describe('With metric=goal: the goal’s id (GET /v1/sites/{id}/goals)'),
    days: z
      .number()
      .int()
      .min(1, 'Give days of 1 or more')
      .max(CHANGE_LIMITS.maxDays, `Give days of at most ${CHANGE_LIMITS.maxDays}`)
      .optional()
      .describe('This period: the last N days ending today (default 7), compared with the N days before'),
    from: zDay.optional().describe('This period’s first day (YYYY-MM-DD); instead of days'),
    to: zDay.optional().describe('This period’s last day (default today)'),
    compareFrom: zDay.optional().describe('The earlier period’s first day (default: as long as this one, just before it)'),
    compareTo: zDay.optional().describe('The earlier period’s last day (with compareFrom)'),
    segment: zSegmentParam,
  })
  // Filters as the dashboard's: where.<dimension>=<value>, applied to both periods.
  .catchall(zWhereParam);
export type ChangesQuery = z.infer<typeof ChangesQuery>;

export const ChangeDriver = z.object({
  dimension: z.string().describe('A dimension of the catalogue, such as source, page or country'),
  label: z.string().describe('The dimension’s name in words'),
  value: z.string().nullable().describe('The value; null for rows without one (direct visits have no source)'),
  current: z.number(),
  previous: z.number(),
  change: z.number().describe('current − previous'),
  share: z.number().nullable().describe('Percent of the total change this value accounts for (null when the total did not move)'),
  sentence: z.string().describe('The change in words: “+1,240 visits from source google”'),
});
export type ChangeDriver = z.infer<typeof ChangeDriver>;

export const Changes = z.object({
  metric: z.enum(CHANGE_METRICS),
  goal: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  previousFrom: z.string(),
  previousTo: z.string(),
  current: z.number(),
  previous: z.number(),
  change: z.number(),
  changePercent: z.number().nullable().describe('Percent change from the earlier period (null when it was 0)'),
  drivers: z.array(ChangeDriver).describe('The values that moved most, largest change first, across dimensions'),
  dimensions: z
    .array(z.object({ dimension: z.string(), label: z.string(), explained: z.number().nullable() }))
    .describe('Per dimension: percent of the total change its three largest movers account for'),
  note: z.string().nullable().describe('What the figures leave out, in words'),
});
export type Changes = z.infer<typeof Changes>;
