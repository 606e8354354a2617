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
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { Actor } from '../services/credentials.ts';

// Placeholder entry points of the stats engine; the engine replaces these bodies.
const notYet = () => new AppError(503, 'Stats are not available yet');

export async function siteStats(
  _d: Deps,
  _em: EntityManager,
  _a: Actor,
  _i: SiteStatsInput | SiteStatsQuery,
): Promise<StatsResult> {
  throw notYet();
}
export async function siteStatsBatch(_d: Deps, _em: EntityManager, _a: Actor, _i: StatsBatchInput): Promise<StatsBatchResult> {
  throw notYet();
}
export async function siteSummary(_d: Deps, _em: EntityManager, _a: Actor, _i: SummaryQuery): Promise<Summary> {
  throw notYet();
}
export async function siteTop(_d: Deps, _em: EntityManager, _a: Actor, _i: TopQuery): Promise<TopTable> {
  throw notYet();
}
