// Request and answer schemas of goal and experiment results (spec §4 "Goals, experiments, behaviour":
// GET /v1/sites/{id}/goals/results and GET /v1/sites/{id}/experiments/{key}/results; §8 Limits).
import { z } from 'zod';
import { zId } from './common.ts';
import { GOAL_TYPES } from './site-settings.ts';
import { STATS_LIMITS } from './stats.ts';

export const RESULTS_LIMITS = {
  /** Variants (and groups) with fewer sessions are shown without figures (spec §8). */
  minSessions: 5,
  /** Significance level of the verdict. */
  alpha: 0.05,
  /** Experiment results read raw records only: at most the raw window. */
  experimentMaxDays: STATS_LIMITS.rawDays,
  /**
   * Variants seen but not declared that an answer lists at most (those with the most sessions): pages choose any
   * variant name, and a stream of made-up ones grew the answer without bound.
   */
  undeclaredVariants: 20,
} as const;

const zDays = (max: number, note: string) =>
  z
    .number()
    .int()
    .min(1, 'Give days of 1 or more')
    .max(max, `Give days of at most ${max}${note}`)
    .optional()
    .describe(`Calendar days ending today in the site’s time zone; 1 = today so far. Default ${STATS_LIMITS.defaultDays}`);

export const GoalResultsQuery = z
  .object({
    id: zId,
    days: zDays(STATS_LIMITS.maxDays, ''),
  })
  .strict();
export type GoalResultsQuery = z.infer<typeof GoalResultsQuery>;

export const ExperimentResultsQuery = z
  .object({
    id: zId,
    key: z.string().min(1).max(200).describe('The experiment key (as in the page’s data-exp)'),
    days: zDays(RESULTS_LIMITS.experimentMaxDays, ' (experiment results read the raw records of the last 90 days)'),
    goal: z
      .string()
      .min(1, 'Give a goal id, or leave goal out for the first event goal')
      .max(200)
      .optional()
      .describe('Goal id (GET /v1/sites/{id}/goals); default the site’s first event goal'),
  })
  .strict();
export type ExperimentResultsQuery = z.infer<typeof ExperimentResultsQuery>;

const zRate = z
  .number()
  .nullable()
  .describe('Percent of sessions reaching the goal (two decimals; 12.5 = 12.5 %); null when not known');

export const GoalResult = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(GOAL_TYPES),
  match: z.string(),
  /** Matching human events (event goals) or human pageviews (path goals). */
  completions: z.number(),
  /** Distinct People sessions with a completion; null where only rollups answer. */
  sessions: z.number().nullable(),
  /** The visits the rate is out of (the answer's `visits`). */
  visits: z.number().nullable(),
  rate: zRate,
  series: z
    .array(z.object({ day: z.string(), completions: z.number() }))
    .describe(
      'Completions per day of the range, zeros filled; past 366 days one entry per month (day: its first day in the range)',
    ),
});
export type GoalResult = z.infer<typeof GoalResult>;

export const ResultsCoverage = z.object({
  /** raw records, daily rollups (older than 90 days), or both. */
  source: z.enum(['raw', 'rollups', 'both']),
  /** What could not be answered and why; null when everything was. */
  note: z.string().nullable(),
});

export const GoalResults = z.object({
  from: z.string().describe('First day, YYYY-MM-DD in the site’s time zone'),
  to: z.string().describe('Last day, inclusive'),
  /** People visits (sessions) of the raw days of the range; null when only rollups answer. */
  visits: z.number().nullable(),
  goals: z.array(GoalResult),
  coverage: ResultsCoverage,
});
export type GoalResults = z.infer<typeof GoalResults>;

export const ExperimentVariantResult = z.object({
  variant: z.string(),
  /** People sessions whose first exposure showed this variant; null (like every figure) when under 5. */
  sessions: z.number().nullable(),
  /** Of those, sessions that reached the goal from that exposure on; null without a goal. */
  converted: z.number().nullable(),
  rate: zRate,
  /** Events (not exposures) sent in those sessions from that exposure on. */
  events: z.number().nullable(),
  /** At least 5 sessions: figures shown. */
  enough: z.boolean(),
});
export type ExperimentVariantResult = z.infer<typeof ExperimentVariantResult>;

export const ExperimentComparison = z.object({
  /** The variant with the most sessions. */
  a: z.string(),
  /** The variant with the second most sessions. */
  b: z.string(),
  /** Two-sided p-value (at most 6 significant digits). */
  p: z.number(),
  /** rate(b) − rate(a), in percentage points (two decimals). */
  difference: z.number(),
  /** 95 % interval of the difference (Newcombe's hybrid score method), in percentage points (two decimals). */
  interval: z.object({ low: z.number(), high: z.number() }),
  test: z.literal('pooled two-sided z-test'),
});

export const ExperimentResults = z.object({
  key: z.string(),
  name: z.string().nullable(),
  status: z.string(),
  from: z.string(),
  to: z.string(),
  goal: z.object({ id: z.string(), name: z.string(), type: z.enum(GOAL_TYPES), match: z.string() }).nullable(),
  variants: z.array(ExperimentVariantResult),
  /** People sessions shown more than one variant: each counts only in the variant it was shown first; null for 1 to 4. */
  mixedSessions: z.number().nullable(),
  comparison: ExperimentComparison.nullable(),
  /** The spec's `p`: comparison.p, present only when there is a comparison (both largest variants at least 5 sessions). */
  p: z.number().optional(),
  verdict: z.string(),
});
export type ExperimentResults = z.infer<typeof ExperimentResults>;
