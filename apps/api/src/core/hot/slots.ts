import type { BoundedFamily } from './store.ts';

/**
 * Redis Cluster spreads keys over 16,384 slots by a hash of each key, or of its hash tag only: the text between
 * the first `{` and the next `}`, when there is any. A script or command naming several keys runs only when they
 * all hash to one slot, so keys used together carry one tag (`bm:{<site>}:…`, `bm-index:{<site>}:…`). Both
 * stores hold callers to it, the in-process one too, so a missing tag shows on a developer's machine rather than
 * first on a cluster.
 */

/** The key's hash tag, or null when it has none (then the whole key is hashed). */
export function hashTag(key: string): string | null {
  const open = key.indexOf('{');
  if (open === -1) return null;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/**
 * Throws unless every key carries the same hash tag. `what` names the step (for the message). A key prefix
 * whose members are `prefix + member` counts when the tag is whole within the prefix.
 */
export function assertOneSlot(what: string, keys: readonly string[]): void {
  const tag = hashTag(keys[0] ?? '');
  if (tag !== null && keys.every((k) => hashTag(k) === tag)) return;
  throw new Error(`${what}: keys used together must share a hash tag such as {site} (${keys.join(', ')})`);
}

/** The keys one `boundedUpdate` of `family` names together: its index, its members' prefix, its list. */
export const familyKeys = (family: BoundedFamily): string[] =>
  family.list ? [family.index, family.prefix, family.list] : [family.index, family.prefix];
