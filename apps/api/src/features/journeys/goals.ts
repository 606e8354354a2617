// The site's goals as journeys count them (spec §2 "Goal"): an event goal matches events of kind
// 'event' by name; a path goal matches a page path, a trailing `*` matching every path starting with
// the rest. Goals read stored rows, so a new goal counts earlier sessions too.
import type { Goal } from '@us/shared';
import { asStoredPath } from '../results/index.ts';

export interface GoalDef {
  id: string;
  name: string;
  type: 'event' | 'path';
  /** An event name or an exact path. */
  match: string;
  /** Path goals ending in `*`: `match` is the prefix. */
  prefix: boolean;
}

export function goalDefs(goals: readonly Goal[]): GoalDef[] {
  return goals.map((g) => {
    if (g.type === 'event') return { id: g.id, name: g.name, type: g.type, match: g.match, prefix: false };
    // Paths as pages send them, percent-encoded (results/goal-match.ts).
    const prefix = g.match.endsWith('*');
    return { id: g.id, name: g.name, type: g.type, match: asStoredPath(prefix ? g.match.slice(0, -1) : g.match), prefix };
  });
}

/** The index (in `defs`) of the first event goal, which experiments count as converted, or -1. */
export function firstEventGoal(defs: readonly GoalDef[]): number {
  return defs.findIndex((g) => g.type === 'event');
}
