// Entry points of the stats engine, called by the router (REST, OpenAPI and MCP come from it).
// The site is checked first (404 for another workspace's site), then the request. Every question runs
// on the stats pool (PostgreSQL's statement_timeout) inside one of the workspace's concurrency slots.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import type {
  SiteStatsInput,
  SiteStatsQuery,
  StatsBatchInput,
  StatsBatchResult,
  StatsResult,
  Summary,
  SummaryQuery,
  TopQuery,
  TopTable,
} from '@us/shared';
import type { Deps } from '../../deps.ts';
import { tooMany } from '../../errors.ts';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { batchOf } from './batch.ts';
import { answer } from './engine.ts';
import { type SiteCtx, siteCtx } from './site-ctx.ts';
import { normalise, specOf } from './spec.ts';
import { summaryOf } from './summary.ts';
import { topOf } from './top.ts';

export type StatsDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm'>;

/** A slot never given back (a process that died mid-question) frees itself after this long. */
const SLOT_TTL_SECONDS = 300;

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

/** Runs `fn` inside one of the workspace's stats slots: 429 (Retry-After) when they are all taken. */
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
    return await fn();
  } finally {
    await deps.hot.releaseSlot(key, holder).catch(() => {});
  }
}

export function siteStats(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: SiteStatsInput | SiteStatsQuery,
): Promise<StatsResult> {
  return withSite(deps, em, actor, input.id, (ctx) =>
    answer(ctx, normalise(specOf(input as Record<string, unknown>), ctx.today)),
  );
}

export function siteStatsBatch(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: StatsBatchInput,
): Promise<StatsBatchResult> {
  return withSite(deps, em, actor, input.id, (ctx) => batchOf(ctx, input.queries));
}

export function siteSummary(deps: StatsDeps, em: EntityManager, actor: Actor, input: SummaryQuery): Promise<Summary> {
  return withSite(deps, em, actor, input.id, (ctx) => summaryOf(ctx, input));
}

export function siteTop(deps: StatsDeps, em: EntityManager, actor: Actor, input: TopQuery): Promise<TopTable> {
  return withSite(deps, em, actor, input.id, (ctx) => topOf(ctx, input));
}
