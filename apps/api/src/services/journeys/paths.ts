// Common paths: sessions grouped by their first steps (up to 4), the 20 most common with at least 5
// sessions, each with its goal rates and lift over the overall rate. Smaller paths are never listed.
import { JOURNEY_LIMITS } from '@us/shared';
import type { GoalDef } from './goals.ts';

export interface GoalCounts {
  steps: readonly string[];
  sessions: number;
  /** Sessions of the group that reached each goal, in goal order. */
  reached: readonly number[];
}

export interface PathAnswer {
  steps: string[];
  sessions: number;
  goals: { id: string; rate: number; lift: number | null }[];
}

/** Percent with one decimal. */
export const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

export function commonPaths(
  groups: readonly GoalCounts[],
  goals: readonly GoalDef[],
  overall: { sessions: number; reached: readonly number[] },
): { paths: PathAnswer[]; unlisted: number } {
  const byPath = new Map<string, { steps: string[]; sessions: number; reached: number[] }>();
  for (const g of groups) {
    if (!g.steps.length) continue;
    const steps = g.steps.slice(0, JOURNEY_LIMITS.pathSteps);
    const key = steps.join('\u0001');
    const p = byPath.get(key) ?? { steps, sessions: 0, reached: goals.map(() => 0) };
    p.sessions += g.sessions;
    g.reached.forEach((n, i) => {
      p.reached[i] = (p.reached[i] ?? 0) + n;
    });
    byPath.set(key, p);
  }
  const all = [...byPath.values()];
  const kept = all.filter((p) => p.sessions >= JOURNEY_LIMITS.minSessions);
  // Only the top few are listed: the full order (with its slow text tie-break) is needed only among the
  // paths at least as large as the last one listed.
  const sizes = kept.map((p) => p.sessions).sort((a, b) => b - a);
  const floor = sizes[JOURNEY_LIMITS.paths - 1] ?? 0;
  const listed = kept
    .filter((p) => p.sessions >= floor)
    .sort((a, b) => b.sessions - a.sessions || JSON.stringify(a.steps).localeCompare(JSON.stringify(b.steps)))
    .slice(0, JOURNEY_LIMITS.paths);
  const unlisted = all.reduce((n, p) => n + p.sessions, 0) - listed.reduce((n, p) => n + p.sessions, 0);
  return {
    paths: listed.map((p) => ({
      steps: p.steps,
      sessions: p.sessions,
      goals: goals.map((g, i) => {
        const rate = p.sessions > 0 ? (p.reached[i] ?? 0) / p.sessions : 0;
        const base = overall.sessions > 0 ? (overall.reached[i] ?? 0) / overall.sessions : 0;
        return {
          id: g.id,
          rate: percent(p.reached[i] ?? 0, p.sessions),
          lift: base > 0 ? Math.round((rate / base) * 100) / 100 : null,
        };
      }),
    })),
    unlisted,
  };
}
