// Entry points of the results routes, called by the router: the site is checked first (404 for another
// workspace's site), then the question runs on the stats pool inside one of the workspace's stats slots,
// like every stats read (analytics/site-slot.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExperimentResults, ExperimentResultsQuery, GoalResults, GoalResultsQuery } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { readSettings } from '../sites/index.ts';
import { experimentResultsOf } from './experiment-results.ts';
import { goalResultsOf } from './goal-results.ts';

export function siteGoalResults(deps: StatsDeps, em: EntityManager, actor: Actor, input: GoalResultsQuery): Promise<GoalResults> {
  return withSite(deps, em, actor, input.id, (ctx, site) => goalResultsOf(ctx, readSettings(site.settings), input));
}

export function siteExperimentResults(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: ExperimentResultsQuery,
): Promise<ExperimentResults> {
  return withSite(deps, em, actor, input.id, (ctx, site) => experimentResultsOf(ctx, readSettings(site.settings), input));
}
