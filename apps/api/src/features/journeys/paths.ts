// Common paths: sessions grouped by their first steps (up to 4), the 20 most common with at least 5
// sessions, each with its goal rates and lift over the overall rate. Smaller paths are never listed.
import { JOURNEY_LIMITS } from '@us/shared';
import type { GoalDef } from './goals.ts';
import { type GroupColumns, NONE, WIDTH } from './groups.ts';
import { PairIndex } from './pair-index.ts';

export interface PathAnswer {
  steps: string[];
  sessions: number;
  goals: { id: string; rate: number; lift: number | null }[];
}

/** Percent with one decimal. */
export const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

/**
 * A path is the pair (number of its first two steps, number of its next two): two lookups in a small
 * index of step pairs and one in the index of paths, instead of joining labels into text keys.
 */
function pathsOf(cols: GroupColumns) {
  if (JOURNEY_LIMITS.pathSteps !== 4) throw new Error('paths are numbered as two pairs of steps');
  const pairs = new PairIndex();
  const paths = new PairIndex();
  const pathOf = new Int32Array(cols.count).fill(NONE);
  /** Per path number, a group that follows it. */
  const example: number[] = [];
  for (let g = 0; g < cols.count; g++) {
    const at = g * WIDTH;
    if (cols.steps[at] === NONE) continue;
    const first = pairs.id(cols.steps[at] as number, cols.steps[at + 1] as number);
    const p = paths.id(first, pairs.id(cols.steps[at + 2] as number, cols.steps[at + 3] as number));
    if (p === example.length) example.push(g);
    pathOf[g] = p;
  }
  const stepsOf = (p: number) => {
    const at = (example[p] as number) * WIDTH;
    const ids = [...cols.steps.subarray(at, at + JOURNEY_LIMITS.pathSteps)].filter((id) => id !== NONE);
    return ids.map((id) => cols.names[id] as string);
  };
  return { pathOf, count: example.length, stepsOf };
}

export function commonPaths(
  cols: GroupColumns,
  goals: readonly GoalDef[],
  overall: { sessions: number; reached: readonly number[] },
): { paths: PathAnswer[]; unlisted: number } {
  const { pathOf, count, stepsOf } = pathsOf(cols);
  const sessions = new Float64Array(count);
  let withSteps = 0;
  for (let g = 0; g < cols.count; g++) {
    const p = pathOf[g] as number;
    if (p === NONE) continue;
    const s = cols.sessions[g] as number;
    sessions[p] = (sessions[p] as number) + s;
    withSteps += s;
  }
  const kept: number[] = [];
  sessions.forEach((s, p) => {
    if (s >= JOURNEY_LIMITS.minSessions) kept.push(p);
  });
  // Only the top few are listed: the full order (with its slow text tie-break) is needed only among the
  // paths at least as large as the last one listed.
  const sizes = kept.map((p) => sessions[p] as number).sort((a, b) => b - a);
  const floor = sizes[JOURNEY_LIMITS.paths - 1] ?? 0;
  const listed = kept
    .filter((p) => (sessions[p] as number) >= floor)
    .map((p) => ({ p, steps: stepsOf(p), sessions: sessions[p] as number }))
    .sort((a, b) => b.sessions - a.sessions || JSON.stringify(a.steps).localeCompare(JSON.stringify(b.steps)))
    .slice(0, JOURNEY_LIMITS.paths);
  const unlisted = withSteps - listed.reduce((n, p) => n + p.sessions, 0);
  const reached = goalsReached(cols, pathOf, listed, goals.length);
  return {
    paths: listed.map(({ steps, sessions: n }, row) => ({
      steps,
      sessions: n,
      goals: goals.map((g, i) => {
        const hit = reached[row * goals.length + i] as number;
        const rate = n > 0 ? hit / n : 0;
        const base = overall.sessions > 0 ? (overall.reached[i] ?? 0) / overall.sessions : 0;
        return { id: g.id, rate: percent(hit, n), lift: base > 0 ? Math.round((rate / base) * 100) / 100 : null };
      }),
    })),
    unlisted,
  };
}

/**
 * Sessions reaching each goal, per listed path (a row each, in `listed`'s order): counted for those few paths only.
 * A table over every path (up to 100 goals each) took hundreds of MB for a month at page zoom.
 */
function goalsReached(cols: GroupColumns, pathOf: Int32Array, listed: readonly { p: number }[], G: number): Float64Array {
  const rowOf = new Map(listed.map(({ p }, row) => [p, row]));
  const reached = new Float64Array(listed.length * G);
  const goalsOfFlag = cols.reachedGoals();
  for (let g = 0; g < cols.count; g++) {
    const row = rowOf.get(pathOf[g] as number);
    if (row === undefined) continue;
    const s = cols.sessions[g] as number;
    const hit = goalsOfFlag[cols.flags[g] as number] as number[];
    for (let k = 0; k < hit.length; k++) {
      const at = row * G + (hit[k] as number);
      reached[at] = (reached[at] as number) + s;
    }
  }
  return reached;
}
