import type { Problem } from '../../../problem.ts';
import { api } from '../../../trpc.ts';
import { type Choices, laneOf, rangeFields } from './choices.ts';
import { LANE_VIEWS, type TableDef } from './lanes.ts';
import type { BatchResult, Catalogue, StatsResult, Summary, TopTable } from './types.ts';

/** A problem the API answered inside a 200 (a refused batch entry), thrown like any other. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.title);
  }
}

/** The answers of the series batch: the lane's daily figures and, for Crawlers, the bots seen. */
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
 * the same call counts requests by bot, for the number of crawlers seen.
 */
export async function loadSeries(siteId: string, c: Choices): Promise<SeriesAnswers> {
  const view = LANE_VIEWS[c.lane];
  const common = { lane: laneOf(c.lane), compare: c.compare, ...rangeFields(c) };
  const queries: Record<string, unknown> = { series: { metrics: view.metrics, by: 'day', ...common } };
  if (c.lane === 'crawlers') queries.bots = { metrics: 'requests', by: 'bot', limit: 1000, ...common };
  const answers = await api.stats.batch.mutate({ id: siteId, queries });
  return { series: answerOf(answers, 'series'), bots: queries.bots ? answerOf(answers, 'bots') : null };
}

/** The headline measures of People traffic (always with the previous period, when there is one). */
export function loadSummary(siteId: string, c: Choices): Promise<Summary> {
  const input = { id: siteId, ...rangeFields(c) };
  return api.stats.summary.query(input);
}

export function loadTop(siteId: string, c: Choices, table: TableDef): Promise<TopTable> {
  const input = {
    id: siteId,
    dimension: table.dimension,
    lane: laneOf(c.lane),
    limit: 10,
    ...(table.count ? { count: table.count } : {}),
    ...rangeFields(c),
  };
  return api.stats.top.query(input);
}

export function loadCatalogue(): Promise<Catalogue> {
  return api.stats.catalogue.query();
}
