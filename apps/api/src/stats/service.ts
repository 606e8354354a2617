// Entry points of the stats engine, called by the router (REST, OpenAPI and MCP come from it).
// The site is checked first (404 for another workspace's site), then the request.
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
import { loadSite } from '../services/access.ts';
import type { Actor } from '../services/credentials.ts';
import { batchOf } from './batch.ts';
import { answer, siteCtx } from './engine.ts';
import { normalise, specOf } from './spec.ts';
import { summaryOf } from './summary.ts';
import { topOf } from './top.ts';

async function ctxOf(em: EntityManager, actor: Actor, siteId: string) {
  const site = await loadSite(em, actor, siteId);
  return siteCtx(em, { id: site.id, timezone: site.timezone, settings: site.settings });
}

export async function siteStats(em: EntityManager, actor: Actor, input: SiteStatsInput | SiteStatsQuery): Promise<StatsResult> {
  const ctx = await ctxOf(em, actor, input.id);
  return answer(ctx, normalise(specOf(input as Record<string, unknown>), ctx.today));
}

export async function siteStatsBatch(em: EntityManager, actor: Actor, input: StatsBatchInput): Promise<StatsBatchResult> {
  const ctx = await ctxOf(em, actor, input.id);
  return batchOf(ctx, input.queries);
}

export async function siteSummary(em: EntityManager, actor: Actor, input: SummaryQuery): Promise<Summary> {
  const ctx = await ctxOf(em, actor, input.id);
  return summaryOf(ctx, input);
}

export async function siteTop(em: EntityManager, actor: Actor, input: TopQuery): Promise<TopTable> {
  const ctx = await ctxOf(em, actor, input.id);
  return topOf(ctx, input);
}
