// Where every stats read runs: the site checked first (404 for another workspace's site), then the
// question on the stats pool (PostgreSQL's statement_timeout) inside one of the workspace's concurrency slots.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import { loadSite } from '../actor/access.ts';
import type { Actor } from '../actor/actor.ts';
import type { Deps } from '../core/deps.ts';
import { tooMany } from '../core/errors.ts';
import { type SiteCtx, siteCtx } from './site-ctx.ts';
import { inWorkspaceShare } from './workspace-share.ts';

export type StatsDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm'>;

/** A slot never given back (a process that died mid-question) frees itself after this long. */
export const SLOT_TTL_SECONDS = 300;

/**
 * Runs one stats question of a site: 404 for a site the actor cannot see, 429 (Retry-After) when the
 * workspace already has its maximum of questions running, the question itself on the stats pool (given
 * the site's context and the site itself, for its settings).
 */
export async function withSite<R>(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  siteId: string,
  run: (ctx: SiteCtx, site: Site) => Promise<R>,
) {
  const site = await loadSite(em, actor, siteId);
  return inWorkspaceSlot(deps, site.workspace.id, () =>
    run(siteCtx(deps.statsOrm.em.fork(), { id: site.id, timezone: site.timezone, settings: site.settings }), site),
  );
}

/**
 * Runs `fn` inside one of the workspace's stats slots: 429 (Retry-After) when they are all taken. Its statements take
 * at most the workspace's share of this node's stats pool (`workspace-share.ts`).
 */
export async function inWorkspaceSlot<R>(deps: StatsDeps, workspaceId: string, fn: () => Promise<R>): Promise<R> {
  const key = `stats-running:${workspaceId}`;
  const holder = randomUUID();
  const limit = deps.env.STATS_CONCURRENT_PER_WORKSPACE;
  if (!(await deps.hot.acquireSlot(key, holder, limit, SLOT_TTL_SECONDS))) {
    throw tooMany(
      2,
      `This workspace already has ${limit} stats questions running: wait 2 seconds, then ask again (or combine them in one batch)`,
    );
  }
  try {
    return await inWorkspaceShare(workspaceId, fn);
  } finally {
    await deps.hot.releaseSlot(key, holder).catch(() => {});
  }
}
