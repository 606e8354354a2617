// The raw-row part of a figures statement: the set's table over local days of the raw window, counted
// per value (`groups`) or in total (`totals`). Identifiers and expressions come from the catalogue.
import { CATALOGUE, dimensionOf, LEAVE_COUNTS, SUMMED_COUNTS } from '../../analytics/catalogue.ts';
import { EXIT_DIMENSIONS, namesExit, visitsWithExits } from '../../analytics/exit-paths.ts';
import type { RawRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import {
  type Grouping,
  laneCond,
  localDaySql,
  localHourSql,
  localMonthSql,
  localWeekSql,
  type Params,
  q,
  rangeCond,
  utcDaysCond,
  whereConds,
} from '../../analytics/sql.ts';
import type { Question } from './question.ts';

/** The value a raw row is counted under: its local day, hour, week or month, or the `by` dimension's expression. */
function valueSql(qn: Question, tz: string, grouping: Grouping): string {
  if (grouping === 'totals' || !qn.by) return 'null::text';
  if (qn.by === 'day') return localDaySql(tz);
  if (qn.by === 'hour') return localHourSql(tz);
  if (qn.by === 'week') return localWeekSql(tz);
  if (qn.by === 'month') return localMonthSql(tz);
  return dimensionOf(qn.metrics, qn.by)?.sql as string;
}

/**
 * The pageviews table with each pageview's leave report(s) beside it. A leave may be stored up to a day
 * after its pageview, hence the wider day range; it comes after its pageview, so rows read from `after`
 * on (today after its rollup) need only the leaves from then on. The output columns' names cannot clash
 * with the catalogue's unqualified column names.
 */
function withLeaves(ctx: SiteCtx, p: Params, table: string, days: RawRange): string {
  const after = days.after ? `\n          and at >= ${p.add(days.after, 'timestamptz')}` : '';
  return `${table}
      left join (
        select pageview_id as leave_pageview_id, max(scroll_depth) as leave_scroll, sum(time_on_page_ms) as leave_ms
        from page_leaves
        where site_id = ${p.add(ctx.siteId, 'uuid')}
          and day between ${p.add(days.from, 'date')} - 1 and ${p.add(days.to, 'date')} + 2${after}
        group by pageview_id
      ) leaves on leaves.leave_pageview_id = ${table}.pageview_id`;
}

/**
 * The visits of the range with their exits (exit-paths.ts), derived over the range's rows of every lane,
 * a visit's pageviews held together per local day. Filtered by other dimensions (which apply to a visit's
 * first pageview), only the visitor-days with a start the question counts are read: the sort then covers
 * their rows alone (docs/performance/history.md, "Figures once kept in code comments").
 */
function exitVisits(ctx: SiteCtx, p: Params, tz: string, qn: Question, days: RawRange): string {
  const table = CATALOGUE[qn.metrics].table;
  const rows = `site_id = ${p.add(ctx.siteId, 'uuid')} and ${rangeCond(p, tz, days)}`;
  const others = Object.fromEntries(Object.entries(qn.where).filter(([d]) => !EXIT_DIMENSIONS.has(d)));
  if (!Object.keys(others).length) return visitsWithExits(table, rows, [localDaySql(tz), 'day'], '*', table);
  // (Built only here: a parameter added and never used has no type PostgreSQL can tell.)
  const starts = [rows, 'session_start', laneCond(p, table, ctx.windows, qn.lane), ...whereConds(p, qn.metrics, others)];
  const narrowed = `${rows} and (day, visitor) in (select day, visitor from ${table} where ${starts.join(' and ')})`;
  return visitsWithExits(table, narrowed, [localDaySql(tz), 'day'], '*', table);
}

/**
 * Columns `value` and one per count; `tz` is the site's time zone placeholder. `keySql`: a second column,
 * `kept_key`, its rows counted apart per its value (kept-days.ts: a row's combination of the filters' values).
 */
export function rawPart(
  ctx: SiteCtx,
  p: Params,
  tz: string,
  qn: Question,
  days: RawRange,
  counts: string[],
  grouping: Grouping,
  keySql?: string,
): string {
  const def = CATALOGUE[qn.metrics];
  const aggregates = counts.map((c) => {
    const summed = SUMMED_COUNTS[c];
    if (summed) return `sum(${summed.column})::numeric as ${q(`${c}__sum`)}, count(${summed.column}) as ${q(`${c}__n`)}`;
    // Visitors are counted per local day and summed over the days, as the daily rollups keep them: a
    // visitor code seen on both sides of local midnight counts on each day, whichever source answers.
    if (c === 'visitors') return `count(distinct (${localDaySql(tz)}, visitor)) as ${q(c)}`;
    return `${def.counts[c]} as ${q(c)}`;
  });
  // The leave reports are joined only when a leave count is asked: the join costs a second scan.
  const names = [...(qn.by ? [qn.by] : []), ...Object.keys(qn.where)];
  let from = counts.some((c) => LEAVE_COUNTS.has(c)) ? withLeaves(ctx, p, def.table, days) : def.table;
  if (namesExit(names)) from = exitVisits(ctx, p, tz, qn, days);
  const conditions = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    rangeCond(p, tz, days) + utcDaysCond(p, ctx.utcDays),
    ...(def.rowFilter ? [def.rowFilter] : []),
    laneCond(p, def.table, ctx.windows, qn.lane),
    ...whereConds(p, qn.metrics, qn.where),
    ...(qn.rawExtra ?? []),
    ...(qn.values && grouping === 'groups'
      ? [`coalesce((${valueSql(qn, tz, grouping)})::text, '') = any(${p.add(qn.values, 'text[]')})`]
      : []),
  ];
  const key = keySql === undefined ? '' : `${keySql} as kept_key,\n      `;
  const groupBy = [...(grouping === 'groups' ? ['1'] : []), ...(keySql === undefined ? [] : ['2'])];
  return `
    select ${valueSql(qn, tz, grouping)} as value,
      ${key}${aggregates.join(',\n      ')}
    from ${from}
    where ${conditions.join('\n      and ')}${groupBy.length ? `\n    group by ${groupBy.join(', ')}` : ''}`;
}
