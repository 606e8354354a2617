// GET /v1/sites/{id}/experiments/{key}/results: per variant the People sessions whose first exposure
// showed it (each session in one variant only, so the compared groups never overlap), those reaching the
// goal from that exposure on, the rate and the events sent from it on; the two largest variants compared by
// a pooled two-sided z-test with Newcombe's interval of the difference. Variants under 5 sessions are
// listed without figures, and then never compared (spec §8). `mixedSessions`: sessions shown more than one
// variant (counted in their first).
import {
  type Experiment,
  type ExperimentResults,
  type ExperimentResultsQuery,
  type ExperimentVariantResult,
  type Goal,
  RESULTS_LIMITS,
} from '@us/shared';
import { resolveRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { experimentRows } from './experiment-days.ts';
import type { VariantRow } from './experiment-statement.ts';
import { matcherOf } from './goal-match.ts';
import type { ReadOptions, SiteLists } from './goal-results.ts';
import { asPercent, newcombeInterval, pooledZTest, significant } from './two-proportions.ts';
import { type Compared, verdictOf } from './verdict.ts';

export const NO_EXPERIMENT = () =>
  new AppError(404, 'No such experiment on this site: check the key with GET /v1/sites/{id}/experiments');

/** The experiment and goal asked for: 404 for an unknown key, 400 `goal` for an unknown goal id. */
export function pickTargets(
  lists: SiteLists,
  key: string,
  goalId: string | undefined,
): { experiment: Experiment; goal: Goal | null } {
  const experiment = lists.experiments.find((e) => e.key === key);
  if (!experiment) throw NO_EXPERIMENT();
  if (goalId === undefined) return { experiment, goal: lists.goals.find((g) => g.type === 'event') ?? null };
  const goal = lists.goals.find((g) => g.id === goalId);
  if (!goal)
    throw badRequest('goal', 'No such goal on this site: give a goal id from GET /v1/sites/{id}/goals, or leave goal out');
  return { experiment, goal };
}

/**
 * Declared variants in declared order, then other variants seen, by name: the RESULTS_LIMITS.undeclaredVariants
 * with the most sessions.
 */
export function orderVariants(declared: readonly string[], rows: readonly VariantRow[]): VariantRow[] {
  const byName = new Map(rows.map((r) => [r.variant, r]));
  const extra = rows
    .filter((r) => !declared.includes(r.variant))
    .sort((a, b) => b.sessions - a.sessions || (a.variant < b.variant ? -1 : 1))
    .slice(0, RESULTS_LIMITS.undeclaredVariants)
    .map((r) => r.variant)
    .sort();
  return [...declared, ...extra].map((v) => byName.get(v) ?? { variant: v, sessions: 0, converted: 0, events: 0, mixed: 0 });
}

/** Sessions shown more than one variant, over every variant seen (listed or not); a group of 1 to 4 is not told (spec §8). */
function mixedOf(rows: readonly VariantRow[]): number | null {
  const n = rows.reduce((sum, r) => sum + r.mixed, 0);
  return n > 0 && n < RESULTS_LIMITS.minSessions ? null : n;
}

/** The two largest variants (ties: listed order), compared when both have enough sessions and a goal exists. */
export function compareLargest(
  ordered: readonly VariantRow[],
  withGoal: boolean,
): { comparison: ExperimentResults['comparison']; compared: Compared | null } {
  const [first, second] = [...ordered].sort((x, y) => y.sessions - x.sessions); // stable: ties keep listed order
  const min = RESULTS_LIMITS.minSessions;
  if (!withGoal || !first || !second || first.sessions < min || second.sessions < min)
    return { comparison: null, compared: null };
  const a = { x: first.converted, n: first.sessions };
  const b = { x: second.converted, n: second.sessions };
  const { p } = pooledZTest(a, b);
  const interval = newcombeInterval(a, b);
  const rateA = a.x / a.n;
  const rateB = b.x / b.n;
  return {
    comparison: {
      a: first.variant,
      b: second.variant,
      p: significant(p),
      difference: asPercent(rateB - rateA),
      interval: { low: asPercent(interval.low), high: asPercent(interval.high) },
      test: 'pooled two-sided z-test',
    },
    compared: { a: first.variant, b: second.variant, rateA, rateB, p },
  };
}

function shown(row: VariantRow, withGoal: boolean): ExperimentVariantResult {
  if (row.sessions < RESULTS_LIMITS.minSessions) {
    return { variant: row.variant, sessions: null, converted: null, rate: null, events: null, enough: false };
  }
  return {
    variant: row.variant,
    sessions: row.sessions,
    converted: withGoal ? row.converted : null,
    rate: withGoal ? asPercent(row.converted / row.sessions) : null,
    events: row.events,
    enough: true,
  };
}

export async function experimentResultsOf(
  ctx: SiteCtx,
  lists: SiteLists,
  input: ExperimentResultsQuery,
  opts: ReadOptions = {},
): Promise<ExperimentResults> {
  const { experiment, goal } = pickTargets(lists, input.key, input.goal);
  const range = resolveRange({ days: input.days }, ctx.today);
  const rows = await experimentRows(ctx, range, experiment, goal ? matcherOf(goal) : null, opts);
  const ordered = orderVariants(experiment.variants, rows);
  const withGoal = goal !== null;
  const { comparison, compared } = compareLargest(ordered, withGoal);
  return {
    key: experiment.key,
    name: experiment.name ?? null,
    status: experiment.status,
    from: range.from,
    to: range.to,
    goal: goal ? { id: goal.id, name: goal.name, type: goal.type, match: goal.match } : null,
    variants: ordered.map((r) => shown(r, withGoal)),
    mixedSessions: mixedOf(rows),
    comparison,
    ...(comparison ? { p: comparison.p } : {}),
    verdict: verdictOf({ goal: withGoal, compared }),
  };
}
