// Entry points of the stats engine, called by the router (REST, OpenAPI and MCP come from it). Each
// runs through `withSite` (analytics/site-slot.ts): the site checked, then a workspace slot on the stats pool.
// A question naming a saved segment (`segment=`) gets its filters first (segments/segment-filters.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  SiteProperties,
  SitePropertiesInput,
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
import { withSegment } from '../segments/index.ts';
import { batchOf } from './batch.ts';
import { answer } from './engine.ts';
import { propertyKeysOf } from './properties.ts';
import { normalise, specOf } from './spec.ts';
import { summaryOf } from './summary.ts';
import { topOf } from './top.ts';

export function siteStats(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: SiteStatsInput | SiteStatsQuery,
): Promise<StatsResult> {
  return withSite(deps, em, actor, input.id, async (ctx) => {
    const question = await withSegment(ctx.em, ctx.siteId, input, input.metrics);
    return answer(ctx, normalise(specOf(question as Record<string, unknown>), ctx.today));
  });
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
  return withSite(deps, em, actor, input.id, async (ctx) => summaryOf(ctx, await withSegment(ctx.em, ctx.siteId, input)));
}

export function siteTop(deps: StatsDeps, em: EntityManager, actor: Actor, input: TopQuery): Promise<TopTable> {
  return withSite(deps, em, actor, input.id, async (ctx) => topOf(ctx, await withSegment(ctx.em, ctx.siteId, input)));
}

export function siteProperties(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: SitePropertiesInput,
): Promise<SiteProperties> {
  return withSite(deps, em, actor, input.id, (ctx, site) => propertyKeysOf(ctx, site.settings));
}
