import { keepPreviousData, queryOptions, skipToken } from '@tanstack/react-query';
import { STATS_LIMITS } from '@us/shared';
import { ProblemError } from '../../../problem.ts';
import type { TRPC, TRPCClient } from '../../../trpc.ts';
import {
  type Choices,
  comparedPeriodFields,
  compareFields,
  intervalOfChoices,
  laneOf,
  rangeFields,
  whereParams,
} from './choices.ts';
import { LANE_VIEWS, type TableDef } from './lanes.ts';
import type { BatchResult, StatsResult } from './types.ts';

/*
 * The dashboard's figures as queries keyed by their input. Each keeps the last answer on screen while
 * the next loads (so switching a range does not blank the page); a failure shows no figures.
 */

/** The answers of the series batch: the lane's figures per hour, day, week or month and, for Crawlers, the bots seen. */
export interface SeriesAnswers {
  series: StatsResult;
  bots: StatsResult | null;
}

function answerOf(answers: BatchResult, name: string): StatsResult {
  const a = answers[name];
  if (!a) throw new ProblemError({ title: 'The figures were not all answered: reload and try again', status: 0 });
  if ('error' in a) throw new ProblemError(a.error);
  return a;
}

/**
 * The lane's daily series (with the previous period when comparing) in one batch call; for Crawlers
 * the same call counts requests by bot, for the number of crawlers seen. The batch is a read sent as
 * a POST (a mutation to tRPC), so its query is made here, cached under the procedure's own key.
 */
export function seriesOptions(trpc: TRPC, client: TRPCClient, siteId: string, c: Choices) {
  const view = LANE_VIEWS[c.lane];
  const where = Object.keys(c.filters).length ? { where: { ...c.filters } } : {};
  const common = { lane: laneOf(c.lane), compare: c.compare, ...compareFields(c), ...rangeFields(c), ...where };
  const by = intervalOfChoices(c);
  const queries: Record<string, unknown> = { series: { metrics: view.metrics, by, ...common } };
  if (c.lane === 'crawlers') queries.bots = { metrics: 'requests', by: 'bot', limit: 1000, ...common };
  const input = { id: siteId, queries };
  return queryOptions({
    queryKey: [...trpc.stats.batch.mutationKey(), { input }],
    queryFn: async (): Promise<SeriesAnswers> => {
      const answers = await client.stats.batch.mutate(input);
      return { series: answerOf(answers, 'series'), bots: queries.bots ? answerOf(answers, 'bots') : null };
    },
    placeholderData: keepPreviousData,
  });
}

/** The headline measures of People traffic (always with the previous period, when there is one); other lanes skip it. */
export function summaryOptions(trpc: TRPC, siteId: string, c: Choices) {
  const input = c.lane === 'people' ? { id: siteId, ...comparedPeriodFields(c) } : skipToken;
  return trpc.stats.summary.queryOptions(input, { placeholderData: keepPreviousData });
}

export function topOptions(trpc: TRPC, siteId: string, c: Choices, table: TableDef) {
  const input = {
    id: siteId,
    dimension: table.dimension,
    lane: laneOf(c.lane),
    // A map colours every country it has; a table shows the top 10.
    limit: table.view === 'map' ? STATS_LIMITS.maxTopRows : 10,
    ...(table.count ? { count: table.count } : {}),
    ...rangeFields(c),
    ...whereParams(c.filters),
  };
  return trpc.stats.top.queryOptions(input, { placeholderData: keepPreviousData });
}
