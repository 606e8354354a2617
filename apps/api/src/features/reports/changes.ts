// "Biggest changes" of a report: per source and page, visitors in the period against the previous one.
// Pure functions over the stats engine's ranked rows, so the e-mail's numbers are the API's.
import type { StatsResult } from '@us/shared';

/** One value of a table in both periods; `before` is null when the site has no earlier period to compare. */
export interface Change {
  value: string;
  now: number;
  before: number | null;
}

export type Dimension = 'source' | 'page';
export type Move = Change & { dimension: Dimension; before: number };

/** How the dashboard names a row without a value. */
const label = (dimension: Dimension, value: string | null) =>
  value === null || value === '' ? (dimension === 'source' ? 'Direct / none' : '(none)') : value;

const visitorsOf = (row: { counts: Record<string, number> }) => row.counts.visitors ?? 0;

/**
 * Every value of either period with its visitors in both, ranked as the answer ranked the period (values
 * seen only before it follow, at 0 now). A value outside an answer's rows counts 0 there.
 */
export function changesOf(dimension: Dimension, answer: StatsResult): Change[] {
  const previous = answer.previous ? new Map(answer.previous.rows.map((r) => [r.value, visitorsOf(r)])) : null;
  const rows: Change[] = answer.rows.map((r) => ({
    value: label(dimension, r.value),
    now: visitorsOf(r),
    before: previous ? (previous.get(r.value) ?? 0) : null,
  }));
  const seen = new Set(answer.rows.map((r) => r.value));
  for (const r of answer.previous?.rows ?? []) {
    if (!seen.has(r.value)) rows.push({ value: label(dimension, r.value), now: 0, before: visitorsOf(r) });
  }
  return rows;
}

/** The top `n` values of the period (those with visitors in it). */
export const topOf = (changes: Change[], n: number) => changes.filter((c) => c.now > 0).slice(0, n);

/**
 * The value (source or page) whose visitors rose the most, and the one that fell the most; null when
 * none did or there is no previous period. Ties go to the value ranked first.
 */
export function biggestMoves(tables: { dimension: Dimension; changes: Change[] }[]): { rose: Move | null; fell: Move | null } {
  let rose: Move | null = null;
  let fell: Move | null = null;
  for (const { dimension, changes } of tables) {
    for (const c of changes) {
      if (c.before === null) continue;
      const delta = c.now - c.before;
      const move = { ...c, dimension, before: c.before };
      if (delta > 0 && (!rose || delta > rose.now - rose.before)) rose = move;
      if (delta < 0 && (!fell || delta < fell.now - fell.before)) fell = move;
    }
  }
  return { rose, fell };
}
