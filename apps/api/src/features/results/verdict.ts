// The experiment verdict in plain words (significance level RESULTS_LIMITS.alpha).
import { RESULTS_LIMITS } from '@us/shared';

export interface Compared {
  a: string;
  b: string;
  rateA: number;
  rateB: number;
  p: number;
}

const percent = (r: number) => `${(r * 100).toFixed(1)} %`;

/**
 * p as people read it: two significant digits, "< 0.001" below that, and "< alpha" for a significant p that the
 * digits would round up to the level (0.0496 is not "= 0.05").
 */
export function formatP(p: number): string {
  if (p < 0.001) return '< 0.001';
  const shown = Number(p.toPrecision(2));
  if (p < RESULTS_LIMITS.alpha && shown >= RESULTS_LIMITS.alpha) return `< ${RESULTS_LIMITS.alpha}`;
  return `= ${shown}`;
}

export function verdictOf(opts: { goal: boolean; compared: Compared | null }): string {
  if (!opts.goal) {
    return 'No event goal to measure: add an event goal (POST /v1/sites/{id}/goals with type event) or name a goal with goal=<id>, then ask again';
  }
  const min = RESULTS_LIMITS.minSessions;
  if (!opts.compared) {
    return `not enough sessions yet: the two largest variants need at least ${min} sessions each`;
  }
  const { a, b, rateA, rateB, p } = opts.compared;
  if (p < RESULTS_LIMITS.alpha && rateA !== rateB) {
    const [win, lose, rw, rl] = rateB > rateA ? [b, a, rateB, rateA] : [a, b, rateA, rateB];
    return `${win} converts better than ${lose} (${percent(rw)} vs ${percent(rl)}), p ${formatP(p)}`;
  }
  return `no clear difference yet between ${a} and ${b} (p ${formatP(p)}): keep the experiment running`;
}
