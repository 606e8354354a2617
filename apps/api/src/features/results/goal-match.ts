// How a goal matches rows, as bind parameters for SQL: an event goal compares the event's name, a path
// goal the page path, exactly or (trailing `*`) by prefix through LIKE with every metacharacter escaped,
// so a `%` or `_` in a path is itself and never a wildcard.
import type { Goal } from '@us/shared';

export type MatchKind = 'event' | 'path' | 'prefix';

export interface GoalMatcher {
  kind: MatchKind;
  /** The event name or exact path, or a LIKE pattern (escape character `\`) for a prefix. */
  value: string;
}

/** `s` as a literal inside a LIKE pattern whose escape character is `\`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A path as the collector stores paths (a page URL's pathname: percent-encoded, dot segments resolved), so a goal
 * typed with the letters themselves (`/café/*`) matches the paths its pages send. Joined to an origin, not resolved
 * against one: resolved, `//thanks` would name a host and leave the path `/`.
 */
export function asStoredPath(path: string): string {
  try {
    return new URL(`http://path.invalid${path}`).pathname;
  } catch {
    return path;
  }
}

export function matcherOf(goal: Pick<Goal, 'type' | 'match'>): GoalMatcher {
  if (goal.type === 'event') return { kind: 'event', value: goal.match };
  if (goal.match.endsWith('*')) return { kind: 'prefix', value: `${escapeLike(asStoredPath(goal.match.slice(0, -1)))}%` };
  return { kind: 'path', value: asStoredPath(goal.match) };
}

/** SQL true when the path expression `col` matches a path matcher given as (kind, value) placeholders. */
export function pathMatchSql(col: string, kind: string, value: string): string {
  return `((${kind} = 'path' and ${col} = ${value}) or (${kind} = 'prefix' and ${col} like ${value} escape '\\'))`;
}
