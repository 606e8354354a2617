// Request and answer schemas of funnels (issue 40: not in the spec; the design is ours, docs/product/funnels.md):
// 2 to 8 ordered steps, each a page (a path, or a prefix ending in *) or an event name, reached in that order
// within one session; saved per site.
import { z } from 'zod';
import { zId } from './common.ts';
import { zSegmentParam } from './segments.ts';
import { checkPathPattern } from './site-settings.ts';
import { STATS_LIMITS, zWhereParam } from './stats.ts';

export const FUNNEL_LIMITS = {
  perSite: 20,
  minSteps: 2,
  maxSteps: 8,
  name: 100,
  match: 200,
  /** Steps reached by fewer visitors are shown without figures (as experiments' small groups). */
  minVisitors: 5,
  /** Funnels read raw pageviews and events: at most the raw window. */
  maxDays: STATS_LIMITS.rawDays,
} as const;

export const FUNNEL_STEP_TYPES = ['page', 'event'] as const;

export const FunnelStep = z
  .object({
    type: z
      .enum(FUNNEL_STEP_TYPES, { error: 'Use type page (matches a page path) or event (matches an event name)' })
      .describe('page: a pageview whose path matches; event: an event of that name'),
    match: z
      .string()
      .trim()
      .min(1, 'Give what the step matches: a path such as /pricing or /blog/*, or an event name')
      .max(FUNNEL_LIMITS.match, `Use at most ${FUNNEL_LIMITS.match} characters`)
      .describe('Page path starting with / (a trailing * matches every path starting with the rest), or an event name'),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.type === 'page') checkPathPattern(s.match, ctx, 'page step', '/pricing');
  });
export type FunnelStep = z.infer<typeof FunnelStep>;

const zSteps = z
  .array(FunnelStep)
  .min(FUNNEL_LIMITS.minSteps, `Give at least ${FUNNEL_LIMITS.minSteps} steps`)
  .max(FUNNEL_LIMITS.maxSteps, `Give at most ${FUNNEL_LIMITS.maxSteps} steps`)
  .describe('The steps in the order a visitor takes them');

const zFunnelName = z
  .string()
  .trim()
  .min(1, 'Give the funnel a name')
  .max(FUNNEL_LIMITS.name, `Use at most ${FUNNEL_LIMITS.name} characters`);

// Generously bounded only: an id that cannot be a funnel's is the same 404 as an unknown one (features/funnels).
const zFunnelId = z.string().min(1).max(1024).describe('The funnel id (from GET /v1/sites/{id}/funnels)');

export const Funnel = z.object({
  id: z.string().describe('Used in routes and results'),
  name: z.string(),
  steps: z.array(z.object({ type: z.enum(FUNNEL_STEP_TYPES), match: z.string() })),
  createdAt: z.string(),
});
export type Funnel = z.infer<typeof Funnel>;

export const FunnelList = z.object({ funnels: z.array(Funnel) });
export const FunnelOutput = z.object({ funnel: Funnel });

export const CreateFunnelInput = z.object({ id: zId, name: zFunnelName, steps: zSteps }).strict();
export type CreateFunnelInput = z.infer<typeof CreateFunnelInput>;

export const FunnelParams = z.object({ id: zId, funnel: zFunnelId }).strict();
export type FunnelParams = z.infer<typeof FunnelParams>;

export const UpdateFunnelInput = z
  .object({ id: zId, funnel: zFunnelId, name: zFunnelName.optional(), steps: zSteps.optional() })
  .strict()
  .refine((x) => x.name !== undefined || x.steps !== undefined, { message: 'Give name, steps or both', path: ['name'] });
export type UpdateFunnelInput = z.infer<typeof UpdateFunnelInput>;

export const FunnelResultsQuery = z
  .object({
    id: zId,
    funnel: zFunnelId,
    days: z
      .number()
      .int()
      .min(1, 'Give days of 1 or more')
      .max(
        FUNNEL_LIMITS.maxDays,
        `Give days of at most ${FUNNEL_LIMITS.maxDays} (funnels read the raw records of the last 90 days)`,
      )
      .optional()
      .describe(`Calendar days ending today in the site’s time zone; 1 = today so far. Default ${STATS_LIMITS.defaultDays}`),
    segment: zSegmentParam,
  })
  // Filters as the dashboard's: where.<dimension>=<value> of the pageviews set (GET /v1/stats/catalogue).
  .catchall(zWhereParam);
export type FunnelResultsQuery = z.infer<typeof FunnelResultsQuery>;

const zShown = (what: string) =>
  z.number().nullable().describe(`${what}; null when fewer than ${FUNNEL_LIMITS.minVisitors} visitors reached the step`);

export const FunnelStepResult = z.object({
  step: z.number().describe('1 for the first step'),
  type: z.enum(FUNNEL_STEP_TYPES),
  match: z.string(),
  visitors: zShown('Visitors (visitor-days) whose session reached this step after the ones before it'),
  sessions: zShown('Sessions that reached this step after the ones before it'),
  conversion: zShown('Percent of the visitors entering the funnel (step 1) who reached this step (two decimals)'),
  dropOff: zShown('Percent of the previous step’s visitors who did not reach this one (null for step 1)'),
  medianSeconds: zShown('Median seconds from the previous step to this one (null for step 1)'),
});
export type FunnelStepResult = z.infer<typeof FunnelStepResult>;

export const FunnelResults = z.object({
  funnel: Funnel,
  from: z.string().describe('First local day read'),
  to: z.string().describe('Last local day read (today)'),
  steps: z.array(FunnelStepResult),
});
export type FunnelResults = z.infer<typeof FunnelResults>;
