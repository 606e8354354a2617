// Request and answer of journeys (spec §4 "Goals, experiments, behaviour": GET /v1/sites/{id}/journeys;
// §8 "groups and variants under 5 sessions shown without figures"). Definitions: docs/product/journeys.md, "Journeys".
import { z } from 'zod';
import { zId } from './common.ts';
import { STATS_LIMITS } from './stats.ts';

export const JOURNEY_ZOOMS = ['page', 'section', 'element'] as const;
export type JourneyZoom = (typeof JOURNEY_ZOOMS)[number];
export const JOURNEY_LANES = ['human', 'internal'] as const;
export type JourneyLane = (typeof JOURNEY_LANES)[number];

export const JOURNEY_LIMITS = {
  /** The smallest group of sessions that is ever named or given figures. */
  minSessions: 5,
  /** Steps of the flow (from the first step, or −2..+2 around the anchor). */
  flowSteps: 5,
  /** Steps of a path. */
  pathSteps: 4,
  paths: 20,
  /** Labels a flow step names at most (its largest); the others show as `(other)`. */
  namedPerStep: 25,
  anchor: 2048,
  /** Journeys read raw rows, kept for this many local days. */
  days: STATS_LIMITS.rawDays,
} as const;

/** Labels that are never a page, section or element. */
export const JOURNEY_OTHER = '(other)';

const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Give a day as YYYY-MM-DD');

export const JourneysQuery = z
  .object({
    id: zId,
    days: z
      .number()
      .int()
      .min(1, 'Give days of 1 or more')
      .max(JOURNEY_LIMITS.days, `Give days of at most ${JOURNEY_LIMITS.days}: journeys read the raw days only`)
      .optional()
      .describe('Calendar days ending today in the site’s time zone; 1 = today so far. Default 7, at most 90'),
    from: zDay.optional().describe('First day (YYYY-MM-DD, site time zone); instead of days; within the last 90 days'),
    to: zDay.optional().describe('Last day (YYYY-MM-DD), inclusive; default today'),
    zoom: z
      .enum(JOURNEY_ZOOMS, { error: 'Use zoom page, section or element' })
      .optional()
      .describe(
        'A step is a page path (page), its first path segment such as /blog (section, default) or a clicked element’s label (element)',
      ),
    who: z
      .enum(JOURNEY_LANES, { error: 'Use who human or internal' })
      .optional()
      .describe('human (People, default) or internal (your team)'),
    anchor: z
      .string()
      .min(1, 'Give an anchor, or leave it out')
      .max(JOURNEY_LIMITS.anchor, `Use at most ${JOURNEY_LIMITS.anchor} characters`)
      .optional()
      .describe(
        'Centre the flow on sessions that reach this step: a page path (zoom page), a section such as /blog (zoom section) or an element label (zoom element)',
      ),
  })
  .strict();
export type JourneysQuery = z.infer<typeof JourneysQuery>;

const zRate = z.number().nullable().describe('Percent of sessions, one decimal; null when the group has fewer than 5 sessions');

export const JourneyNode = z.object({
  /** `<step>:<label>`, unique in the flow. */
  id: z.string(),
  /** 0..4 from the first step, or −2..2 around the anchor. */
  step: z.number().int(),
  /** A page path, section or element label, or `(other)` for steps named by fewer than 5 sessions. */
  label: z.string(),
  sessions: z.number().int(),
});

export const JourneyLink = z.object({ source: z.string(), target: z.string(), sessions: z.number().int() });

export const Journeys = z.object({
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  zoom: z.enum(JOURNEY_ZOOMS),
  who: z.enum(JOURNEY_LANES),
  anchor: z.string().nullable(),
  /** Sessions with at least one pageview in journeys. */
  visits: z.number().int(),
  goals: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      /** Sessions that reached the goal; null when visits are fewer than 5. */
      sessions: z.number().int().nullable(),
      rate: zRate,
    }),
  ),
  flow: z.object({ nodes: z.array(JourneyNode), links: z.array(JourneyLink) }),
  paths: z.array(
    z.object({
      steps: z.array(z.string()),
      sessions: z.number().int(),
      goals: z.array(
        z.object({
          id: z.string(),
          rate: z.number(),
          /** The path's rate over the overall rate; null when the overall rate is 0. */
          lift: z.number().nullable(),
        }),
      ),
    }),
  ),
  experiments: z.array(
    z.object({
      key: z.string(),
      name: z.string().nullable(),
      status: z.string(),
      /** The goal counted as converted: the site's first event goal (null when it has none). */
      goal: z.string().nullable(),
      variants: z.array(
        z.object({
          variant: z.string(),
          sessions: z.number().int().nullable(),
          converted: z.number().int().nullable(),
          rate: zRate,
        }),
      ),
    }),
  ),
  other: z.object({ note: z.string() }),
});
export type Journeys = z.infer<typeof Journeys>;
