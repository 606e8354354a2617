// What the Protection page's own procedures (dry run, try a request, AI traffic) share: a second scope,
// the site's saved bot settings, the stats pool with the workspace's slot, and which rule decided.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import { ALWAYS_SERVED, firstMatch, type ProtectionSettings, type RequestFacts } from '@us/protection';
import type { BotSettings, Scope } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { inWorkspaceSlot } from '../../analytics/site-slot.ts';
import type { Deps } from '../../core/deps.ts';
import { scopeMissing } from '../../core/errors.ts';
import { readSettings } from '../sites/index.ts';

export type ToolsDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm'>;

/**
 * A scope besides the one the procedure's meta names (meta carries one): the tools that read stored
 * traffic need `analytics:read` as well as `bot:read`. Worded as the builders word a missing scope.
 */
export function requireScope(actor: Actor, scope: Scope): void {
  if (actor.scopes.includes(scope)) return;
  throw scopeMissing(scope, 'ask a workspace owner for a role or token that has it');
}

/** The site's saved bot settings (a site written before bot protection reads as off, allow, no rules). */
export function savedBotSettings(site: Site): BotSettings {
  return readSettings(site.settings as Record<string, unknown>).bot;
}

/** The rule that decides a request under these settings, or null (off, an always-served path, no match). */
export function decidingRule(settings: ProtectionSettings, facts: RequestFacts): number | null {
  if (settings.mode === 'off' || ALWAYS_SERVED.has(facts.path)) return null;
  return firstMatch(settings.rules, facts)?.index ?? null;
}

/**
 * Runs a traffic read of a site on the stats pool, inside one of the workspace's stats slots (the same
 * budget as the stats routes: 429 with Retry-After when the workspace already has its maximum running).
 */
export async function onStatsPool<R>(
  deps: ToolsDeps,
  em: EntityManager,
  actor: Actor,
  siteId: string,
  fn: (site: Site, statsEm: EntityManager) => Promise<R>,
): Promise<R> {
  const site = await loadSite(em, actor, siteId);
  return inWorkspaceSlot(deps, site.workspace.id, () => fn(site, deps.statsOrm.em.fork()));
}
