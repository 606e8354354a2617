// The rollup part of a figures statement: `daily_rollups` rows of one dimension (see catalogue.ts for
// the format), counted per value (`groups`) or in total (`totals`), with the raw part's columns.
import type { MetricSet } from '@us/shared';
import { CATALOGUE } from './catalogue.ts';
import type { RollupShape } from './planner.ts';
import type { Question } from './question.ts';
import type { DayRange } from './range.ts';
import type { SiteCtx } from './site-ctx.ts';
import { type Grouping, NONE, type Params, q } from './sql.ts';

/** Where a count of a set lives in the rollups (its metric_set and column), or null: not kept there. */
function rollupColumn(set: MetricSet, count: string): { metricSet: string; column: 'count' | 'visitors' } | null {
  const primary = Object.keys(CATALOGUE[set].counts)[0];
  if (count === primary) return { metricSet: set, column: 'count' };
  if (count === 'visitors') return { metricSet: set, column: 'visitors' };
  if (set === 'pageviews' && count === 'sessions') return { metricSet: 'sessions', column: 'count' };
  return null;
}

function valueSql(qn: Question, grouping: Grouping): string {
  if (grouping === 'totals' || !qn.by) return 'null::text';
  // A null dimension value is stored as ''.
  return qn.by === 'day' ? `to_char(day, 'YYYY-MM-DD')` : `nullif(value, '')`;
}

export function rollupPart(
  ctx: SiteCtx,
  p: Params,
  qn: Question,
  days: DayRange,
  shape: RollupShape,
  counts: string[],
  grouping: Grouping,
): string {
  const dimension = grouping === 'totals' ? shape.totals : shape.groups;
  const metricSets = new Set<string>();
  const aggregates = counts.map((c) => {
    const kept = rollupColumn(qn.metrics, c);
    if (!kept) return `0::bigint as ${q(c)}`;
    metricSets.add(kept.metricSet);
    return `sum(${kept.column}) filter (where metric_set = ${p.add(kept.metricSet, 'text')}) as ${q(c)}`;
  });
  const conditions = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    `day between ${p.add(days.from, 'date')} and ${p.add(days.to, 'date')}`,
    `lane = ${p.add(qn.lane, 'text')}`,
    `metric_set = any(${p.add([...metricSets], 'text[]')})`,
    `dimension = ${p.add(dimension, 'text')}`,
  ];
  const filtered = qn.where[dimension];
  if (dimension === '') conditions.push(`value = ''`);
  else if (filtered !== undefined) conditions.push(`value = ${p.add(filtered === NONE ? '' : filtered, 'text')}`);
  return `
    select ${valueSql(qn, grouping)} as value,
      ${aggregates.join(',\n      ')}
    from daily_rollups
    where ${conditions.join('\n      and ')}${grouping === 'groups' && qn.by ? '\n    group by 1' : ''}`;
}
