// Entry points of the stats engine, called by the router (REST, OpenAPI and MCP come from it). Each
// runs through `withSite` (analytics/site-slot.ts): the site checked, then a workspace slot on the stats pool.
import type { EntityManager } from '@mikro-orm/postgresql';
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
import type { Actor } from '../../actor/actor.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { batchOf } from './batch.ts';
import { answer } from './engine.ts';
import { normalise, specOf } from './spec.ts';
import { summaryOf } from './summary.ts';
import { topOf } from './top.ts';

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
