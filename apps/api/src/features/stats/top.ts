// Top tables (GET /v1/sites/{id}/top/{dimension}): one dimension ranked by the count of its set.
import {
  type Lane,
  type MetricSet,
  STATS_LIMITS,
  type StatsRow,
  TOP_DIMENSIONS,
  type TopDimension,
  type TopQuery,
  type TopTable,
} from '@us/shared';
import { CATALOGUE, primaryCount } from '../../analytics/catalogue.ts';
import { type DayRange, resolveRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { badRequest } from '../../core/errors.ts';
import { figures } from './engine.ts';
import { checkWhere, whereFromParams } from './spec.ts';
import { NETWORK_ATTRIBUTION, TOP_SETS } from './top-dimensions.ts';

const KNOWN = new Set(['id', 'dimension', 'days', 'from', 'to', 'count', 'lane', 'limit']);

export function checkTopDimension(name: string): TopDimension {
  if (!Object.hasOwn(TOP_SETS, name)) {
    throw badRequest('dimension', `Use a top-table dimension: ${TOP_DIMENSIONS.join(', ')} (see GET /v1/stats/catalogue)`);
  }
  return name as TopDimension;
}

/**
 * The metric set and count a top table ranks by: its set's primary count, or what `count` chose: pageviews
 * for a dimension pageviews have too, the events' summed values for an events dimension.
 */
function rankedBy(dimension: TopDimension, chosen: TopQuery['count']): { metrics: MetricSet; count: string } {
  const ranked = TOP_SETS[dimension];
  if (chosen === undefined) return { metrics: ranked, count: primaryCount(ranked) };
  if (chosen === 'value_sum' && ranked === 'events') return { metrics: ranked, count: chosen };
  const pageDimension = ranked === 'sessions' && Object.hasOwn(CATALOGUE.pageviews.dimensions, dimension);
  if (chosen !== 'value_sum' && pageDimension) return { metrics: chosen, count: chosen };
  const choices = ranked === 'events' ? 'value_sum' : pageDimension ? 'sessions or pageviews' : null;
  throw badRequest(
    'count',
    choices
      ? `Use count ${choices} for ${dimension}, or leave it out`
      : `Leave out count: ${dimension} always counts ${primaryCount(ranked)} (count applies to page and event dimensions)`,
  );
}

/**
 * Each exit page's exit rate: the percent of its pageviews (same lane, range and filters; exit_page
 * itself filters the exits only) that ended a visit, read for just the pages shown. Null without
 * pageviews (a page without a value).
 */
async function exitRates(
  ctx: SiteCtx,
  rows: readonly StatsRow[],
  q: { lane: Lane; range: DayRange; where: Record<string, string> },
): Promise<Map<string, number | null>> {
  const pages = rows.flatMap((r) => (r.value === null ? [] : [r.value]));
  if (!pages.length) return new Map();
  const where = Object.fromEntries(Object.entries(q.where).filter(([d]) => d !== 'exit_page'));
  const views = await figures(ctx, {
    metrics: 'pageviews',
    by: 'page',
    lane: q.lane,
    range: q.range,
    where,
    sort: 'pageviews',
    counts: ['pageviews'],
    limit: pages.length,
    values: pages,
  });
  const pageviews = new Map(views.rows.map((r) => [r.value ?? '', r.counts.pageviews ?? 0]));
  return new Map(
    rows.map((r) => {
      const seen = r.value === null ? 0 : (pageviews.get(r.value) ?? 0);
      const exits = r.counts.sessions ?? 0;
      return [r.value ?? '', seen > 0 ? Math.round((exits / seen) * 1000) / 10 : null];
    }),
  );
}

export async function topOf(ctx: SiteCtx, input: TopQuery): Promise<TopTable> {
  const dimension = checkTopDimension(input.dimension);
  const { metrics, count } = rankedBy(dimension, input.count);
  const where = checkWhere(metrics, whereFromParams(input, KNOWN));
  const range = resolveRange(input, ctx.today);
  const lane = input.lane ?? CATALOGUE[metrics].defaultLane;
  const limit = input.limit ?? STATS_LIMITS.defaultTopRows;
  const fig = await figures(ctx, {
    metrics,
    by: dimension,
    lane,
    range,
    where,
    sort: count,
    counts: [count],
    limit,
    // `event` and `label` rank events sent by site code, not A/B exposures (raw rows; rollups keep all
    // kinds together).
    // Ranked by their values, only events that carry one (as the rollups keep values: metric set event_value).
    rawExtra: [
      ...(dimension === 'event' || dimension === 'label' ? [`kind = 'event'`] : []),
      ...(count === 'value_sum' ? ['value is not null'] : []),
    ],
  });
  const total = fig.totals[count] ?? 0;
  const rates = dimension === 'exit_page' ? await exitRates(ctx, fig.rows, { lane, range, where }) : null;
  return {
    dimension,
    metrics,
    count,
    lane,
    timezone: ctx.timezone,
    from: range.from,
    to: range.to,
    total,
    rows: fig.rows.map((r) => {
      const n = r.counts[count] ?? 0;
      const share = total > 0 ? Math.round((n / total) * 1000) / 10 : 0;
      return { value: r.value, count: n, share, ...(rates ? { exitRate: rates.get(r.value ?? '') ?? null } : {}) };
    }),
    truncated: fig.truncated,
    attribution: dimension === 'network' ? NETWORK_ATTRIBUTION : null,
  };
}
