import type { ApiToken } from '@us/db';
import type { Scope, TokenEntry } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';

/** A token row as lists show it: the display prefix, never the secret or its hash. */
export function toEntry(row: ApiToken): TokenEntry {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as Scope[],
    siteIds: row.siteIds ?? null,
    createdBy: row.createdBy.id,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** The first of `scopes` the caller does not hold (a person's come from the role), or undefined. */
export function firstMissingScope(actor: Actor, scopes: readonly string[]): string | undefined {
  const held = new Set<string>(actor.scopes);
  return scopes.find((s) => !held.has(s));
}

/**
 * Whether a site-restricted caller may see a token: only when the token is restricted too and every
 * one of its sites lies within the caller's. Unrestricted callers see every token of the workspace.
 */
export function withinRestriction(actor: Actor, siteIds: readonly string[] | null): boolean {
  if (actor.siteIds === null) return true;
  if (siteIds === null) return false;
  const own = new Set(actor.siteIds.map((s) => s.toLowerCase()));
  return siteIds.every((s) => own.has(s.toLowerCase()));
}
