// The rollup part of a figures statement: `daily_rollups` rows of one dimension (see catalogue.ts for
// the format), counted per value (`groups`) or in total (`totals`), with the raw part's columns. A pair's
// rows (`a|b`) are read by the side each condition or grouping names.
import { type MetricSet, PROPERTY_PREFIX } from '@us/shared';
import { CATALOGUE, PAIR_SEPARATOR, SUMMED_COUNTS } from '../../analytics/catalogue.ts';
import type { DayRange } from '../../analytics/range.ts';
import { rollupSource } from '../../analytics/rollup-source.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type Grouping, NONE, type Params, q } from '../../analytics/sql.ts';
import type { RollupShape } from './planner.ts';
import type { Question } from './question.ts';

/** Where a count of a set lives in the rollups (its metric_set and column), or null: not kept there. */
function rollupColumn(set: MetricSet, count: string): { metricSet: string; column: 'count' | 'visitors' } | null {
  const primary = Object.keys(CATALOGUE[set].counts)[0];
  if (count === primary) return { metricSet: set, column: 'count' };
  if (count === 'visitors') return { metricSet: set, column: 'visitors' };
  if (set === 'pageviews' && count === 'sessions') return { metricSet: 'sessions', column: 'count' };
  return null;
}

/**
 * The stored value's part holding a dimension: the whole value, or one side of a pair's `a\x1fb`
 * (dimension `a|b`). A null dimension value is stored as ''.
 */
function partSql(dimension: string, name: string): string {
  const names = dimension.split('|');
  if (names.length === 1) return 'value';
  return `split_part(value, E'${PAIR_SEPARATOR}', ${names.indexOf(name) + 1})`;
}

/**
 * The rows of one rollup dimension ('' = day totals, `a|b` = a pair) whose value (or side of a pair)
 * is the `where` value of each dimension it names.
 */
export function dimensionConds(p: Params, dimension: string, where: Record<string, string>): string[] {
  const conds = [`dimension = ${p.add(dimension, 'text')}`];
  if (dimension === '') conds.push(`value = ''`);
  for (const name of dimension ? dimension.split('|') : []) {
    const filtered = where[name];
    if (filtered !== undefined) conds.push(`${partSql(dimension, name)} = ${p.add(filtered === NONE ? '' : filtered, 'text')}`);
  }
  return conds;
}

/** Rollup rows keep days: a week or month series sums the days of each bucket (visitors: daily visitors summed). */
const TIME_VALUES: Record<string, string> = {
  day: `to_char(day, 'YYYY-MM-DD')`,
  week: `to_char(date_trunc('week', day::timestamp), 'YYYY-MM-DD')`,
  month: `to_char(day, 'YYYY-MM')`,
};

function valueSql(qn: Question, grouping: Grouping, dimension: string): string {
  if (grouping === 'totals' || !qn.by) return 'null::text';
  return TIME_VALUES[qn.by] ?? `nullif(${partSql(dimension, qn.by)}, '')`;
}

/** Imported history keeps no pairs of dimensions and no custom properties: a question read from their rows leaves it out. */
const notImported = (dimension: string) => dimension.includes('|') || dimension.startsWith(PROPERTY_PREFIX);
export const withoutImported = (shape: RollupShape) => notImported(shape.groups) || notImported(shape.totals);

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
    const summed = SUMMED_COUNTS[c];
    if (summed) {
      metricSets.add(summed.metricSet);
      const only = `filter (where metric_set = ${p.add(summed.metricSet, 'text')})`;
      return `sum(count) ${only}::numeric as ${q(`${c}__sum`)}, sum(visitors) ${only} as ${q(`${c}__n`)}`;
    }
    const kept = rollupColumn(qn.metrics, c);
    if (!kept) return `0::bigint as ${q(c)}`;
    metricSets.add(kept.metricSet);
    return `sum(${kept.column}) filter (where metric_set = ${p.add(kept.metricSet, 'text')}) as ${q(c)}`;
  });
  const site = p.add(ctx.siteId, 'uuid');
  const from = p.add(days.from, 'date');
  const to = p.add(days.to, 'date');
  const conditions = [
    `lane = ${p.add(qn.lane, 'text')}`,
    `metric_set = any(${p.add([...metricSets], 'text[]')})`,
    ...dimensionConds(p, dimension, qn.where),
    ...(qn.values && qn.by && grouping === 'groups' ? [`${partSql(dimension, qn.by)} = any(${p.add(qn.values, 'text[]')})`] : []),
  ];
  return `
    select ${valueSql(qn, grouping, dimension)} as value,
      ${aggregates.join(',\n      ')}
    from ${rollupSource(site, from, to, !withoutImported(shape) && !qn.withoutImported)} rollups
    where ${conditions.join('\n      and ')}${grouping === 'groups' && qn.by ? '\n    group by 1' : ''}`;
}
