import { type Problem, toProblem } from '../problem.ts';

interface Action {
  error: unknown;
  /** When the action was last started (0: never). */
  submittedAt: number;
}

/**
 * The problem of a card's actions (its mutations) to show in its one notice: that of the action
 * started last, if it failed; starting another action clears it.
 */
export function latestProblem(...actions: Action[]): Problem | null {
  const last = actions.reduce((a, b) => (b.submittedAt > a.submittedAt ? b : a));
  return last.error ? toProblem(last.error) : null;
}
