// The stats engine: one statement per answer over raw rows (local days within the raw window) and/or
// daily rollups (older days), merged by value in SQL. See catalogue.ts for the rollup format.
import type { Lane, MetricSet, StatsResult, StatsRow } from '@us/shared';
import { badRequest } from '../../errors.ts';
import { CATALOGUE, LEAVE_COUNTS, TIME_DIMENSIONS } from './catalogue.ts';
import { type DayRange, daysOf, hoursOf, previousRange, splitRange } from './range.ts';
import { splitForQuestion } from './rolled-days.ts';
import type { SiteCtx } from './site-ctx.ts';
import type { NormalSpec } from './spec.ts';
import { laneCond, localDaySql, localHourSql, NONE, Params, q, rangeCond, runSql, tzParam, whereConds } from './sql.ts';

export type Source = 'raw' | 'rollups' | 'mixed';

/** One question to the engine (a spec without its presentation). */
export interface Question {
  metrics: MetricSet;
  by: string | null;
  lane: Lane;
  range: DayRange;
  where: Record<string, string>;
  sort: string;
  /** Rows returned for a non-time `by` (series by day/hour are never cut). */
  limit: number;
  /** Extra raw-row conditions fixed by the caller (catalogue SQL only, e.g. events of kind 'event'). */
  rawExtra?: string[];
  /** Only these counts (the sort first); default every count of the set. */
  counts?: string[];
}

export interface Figures {
  totals: Record<string, number>;
  rows: StatsRow[];
  truncated: boolean;
  source: Source;
}

/** Counts of a set, the sort first. */
export function countNames(set: MetricSet, sort: string): string[] {
  return [sort, ...Object.keys(CATALOGUE[set].counts).filter((c) => c !== sort)];
}

/** Where a count of a set lives in the rollups: its metric_set and column. */
function rollupSource(set: MetricSet, count: string): { metricSet: string; column: 'count' | 'visitors' } | null {
  const primary = Object.keys(CATALOGUE[set].counts)[0];
  if (count === primary) return { metricSet: set, column: 'count' };
  if (count === 'visitors') return { metricSet: set, column: 'visitors' };
  if (set === 'pageviews' && count === 'sessions') return { metricSet: 'sessions', column: 'count' };
  return null;
}

/**
 * A rollup answer can hold at most one dimension besides `day`: `by` (when not a time) and the `where`
 * keys together name one dimension at most. Returns it ('' for day totals).
 */
export function rollupDimension(by: string | null, where: Record<string, string>): string {
  const seen: string[] = by && !TIME_DIMENSIONS.has(by) ? [by] : [];
  for (const key of Object.keys(where)) {
    if (seen.length && !seen.includes(key)) {
      throw badRequest(
        `where.${key}`,
        `Data older than 90 days is kept per single dimension: ${[...seen, key].join(' with ')} together is only possible within the last 90 days; drop one or choose later days`,
      );
    }
    if (!seen.includes(key)) seen.push(key);
  }
  return seen[0] ?? '';
}

function fitsRollups(by: string | null, where: Record<string, string>): boolean {
  try {
    rollupDimension(by, where);
    return true;
  } catch {
    return false;
  }
}

type Mode = 'group' | 'totals';

function rawPart(ctx: SiteCtx, p: Params, tz: string, qn: Question, r: DayRange, counts: string[], mode: Mode): string {
  const def = CATALOGUE[qn.metrics];
  let value = 'null::text';
  if (mode === 'group' && qn.by) {
    if (qn.by === 'day') value = localDaySql(tz);
    else if (qn.by === 'hour') value = localHourSql(tz);
    else value = def.dimensions[qn.by]?.sql as string;
  }
  const aggs = counts.map((c) => `${def.counts[c]} as ${q(c)}`).join(', ');
  const from = counts.some((c) => LEAVE_COUNTS.has(c)) ? withLeaves(ctx, p, def.table, r) : def.table;
  const conds = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    rangeCond(p, tz, r),
    ...(def.rowFilter ? [def.rowFilter] : []),
    laneCond(p, def.table, ctx.windows, qn.lane),
    ...whereConds(p, qn.metrics, qn.where),
    ...(qn.rawExtra ?? []),
  ];
  return `select ${value} as value, ${aggs} from ${from} where ${conds.join(' and ')}${mode === 'group' ? ' group by 1' : ''}`;
}

/**
 * The pageviews table with each pageview's leave report(s) beside it. A leave may be stored up to a day
 * after its pageview, hence the wider day range; the output columns' names cannot clash with the
 * catalogue's unqualified column names.
 */
function withLeaves(ctx: SiteCtx, p: Params, table: string, r: DayRange): string {
  const site = p.add(ctx.siteId, 'uuid');
  const from = p.add(r.from, 'date');
  const to = p.add(r.to, 'date');
  return `${table} left join (select pageview_id as leave_pageview_id, max(scroll_depth) as leave_scroll, sum(time_on_page_ms) as leave_ms
      from page_leaves where site_id = ${site} and day between ${from} - 1 and ${to} + 2 group by pageview_id) leaves
      on leaves.leave_pageview_id = ${table}.pageview_id`;
}

function rollupPart(ctx: SiteCtx, p: Params, qn: Question, r: DayRange, counts: string[], mode: Mode): string {
  // Totals read the day-total rows (or the filtered dimension's): visitors do not add up across values.
  const dimension = rollupDimension(mode === 'totals' ? null : qn.by, qn.where);
  let value = 'null::text';
  if (mode === 'group' && qn.by === 'day') value = `to_char(day, 'YYYY-MM-DD')`;
  else if (mode === 'group' && qn.by) value = `nullif(value, '')`;
  const sets = new Set<string>();
  const aggs = counts.map((c) => {
    const src = rollupSource(qn.metrics, c);
    if (!src) return `0::bigint as ${q(c)}`;
    sets.add(src.metricSet);
    return `sum(${src.column}) filter (where metric_set = ${p.add(src.metricSet, 'text')}) as ${q(c)}`;
  });
  const conds = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    `day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')}`,
    `lane = ${p.add(qn.lane, 'text')}`,
    `metric_set = any(${p.add([...sets], 'text[]')})`,
    `dimension = ${p.add(dimension, 'text')}`,
  ];
  const filtered = qn.where[dimension];
  if (dimension === '') conds.push(`value = ''`);
  else if (filtered !== undefined) conds.push(`value = ${p.add(filtered === NONE ? '' : filtered, 'text')}`);
  const groupBy = mode === 'group' && qn.by ? ' group by 1' : '';
  return `select ${value} as value, ${aggs.join(', ')} from daily_rollups where ${conds.join(' and ')}${groupBy}`;
}

async function runParts(
  ctx: SiteCtx,
  qn: Question,
  counts: string[],
  mode: Mode,
  split: { raw: DayRange | null; rollup: DayRange | null },
  withTotals = false,
) {
  const p = new Params();
  const tz = split.raw ? tzParam(p, ctx.timezone) : '';
  const parts: string[] = [];
  if (split.raw) parts.push(rawPart(ctx, p, tz, qn, split.raw, counts, mode));
  if (split.rollup) parts.push(rollupPart(ctx, p, qn, split.rollup, counts, mode));
  const sums = counts.map((c) => `coalesce(sum(${q(c)}), 0)::float8 as ${q(c)}`).join(', ');
  let sql: string;
  if (mode === 'totals') sql = `select ${sums} from (${parts.join(' union all ')}) parts`;
  else {
    const ranked = !TIME_DIMENSIONS.has(qn.by as string);
    // Plain row counts add up across groups: the grand totals ride along (computed before the limit).
    const totals = withTotals
      ? counts.map((c) => `, sum(coalesce(sum(${q(c)}), 0)) over ()::float8 as ${q(`total_${c}`)}`).join('')
      : '';
    sql = `select value, ${sums}${totals} from (${parts.join(' union all ')}) parts group by value`;
    if (ranked) sql += ` order by ${q(qn.sort)} desc, value asc nulls last limit ${p.add(qn.limit + 1, 'int')}`;
  }
  return runSql(ctx.em, sql, p);
}

const toCounts = (row: Record<string, unknown> | undefined, counts: string[]) =>
  Object.fromEntries(counts.map((c) => [c, Number(row?.[c] ?? 0)]));

/** Totals and rows of one period. */
export async function figures(ctx: SiteCtx, qn: Question): Promise<Figures> {
  const old = splitRange(qn.range, ctx.rawStart);
  if (qn.by === 'hour' && old.rollup) {
    throw badRequest('by', `Hourly series exist only for the last 90 days: choose days from ${ctx.rawStart} on, or by=day`);
  }
  if (old.rollup) rollupDimension(qn.by, qn.where);
  const counts = qn.counts ?? countNames(qn.metrics, qn.sort);
  const eligible =
    qn.by !== 'hour' && !counts.some((c) => LEAVE_COUNTS.has(c)) && !qn.rawExtra?.length && fitsRollups(qn.by, qn.where);
  const split = await splitForQuestion(ctx, qn.range, eligible);
  // A ranked table of plain row counts (top tables) needs one scan, not two.
  const selfTotals =
    qn.by !== null && !TIME_DIMENSIONS.has(qn.by) && counts.every((c) => CATALOGUE[qn.metrics].counts[c]?.startsWith('count(*)'));
  const [totalRows, grouped] = await Promise.all([
    selfTotals ? Promise.resolve(null) : runParts(ctx, qn, counts, 'totals', split),
    qn.by ? runParts(ctx, qn, counts, 'group', split, selfTotals) : Promise.resolve([]),
  ]);
  const totals = totalRows
    ? toCounts(totalRows[0], counts)
    : Object.fromEntries(counts.map((c) => [c, Number(grouped[0]?.[`total_${c}`] ?? 0)]));
  let rows: StatsRow[] = grouped.map((r) => ({ value: (r.value as string | null) ?? null, counts: toCounts(r, counts) }));
  let truncated = false;
  if (qn.by === 'day' || qn.by === 'hour') {
    const byValue = new Map(rows.map((r) => [r.value, r.counts]));
    const keys = qn.by === 'day' ? daysOf(qn.range) : hoursOf(qn.range);
    rows = keys.map((k) => ({ value: k, counts: byValue.get(k) ?? toCounts(undefined, counts) }));
  } else if (rows.length > qn.limit) {
    rows = rows.slice(0, qn.limit);
    truncated = true;
  }
  const source: Source = split.raw && split.rollup ? 'mixed' : split.rollup ? 'rollups' : 'raw';
  return { totals, rows, truncated, source };
}

/**
 * Whether a previous period can be shown: the site has some row (raw rows of the table, or any rollup)
 * before `from`. Gives the reason when not.
 */
export async function comparability(
  ctx: SiteCtx,
  table: 'pageviews' | 'events' | 'requests',
  from: string,
): Promise<{ available: boolean; reason: string | null }> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const rows = await runSql<{ raw_first: string | null; rollup_first: string | null }>(
    ctx.em,
    `select (select to_char((min(at) at time zone ${tz})::date, 'YYYY-MM-DD') from ${table} where site_id = ${site}) as raw_first,
            (select to_char(min(day), 'YYYY-MM-DD') from daily_rollups where site_id = ${site}) as rollup_first`,
    p,
  );
  const firsts = [rows[0]?.raw_first, rows[0]?.rollup_first].filter((d): d is string => typeof d === 'string');
  const first = firsts.sort()[0];
  if (first === undefined) return { available: false, reason: `No data before ${from}: the site has no data yet` };
  if (first >= from) return { available: false, reason: `No data before ${from}: the site has recorded since ${first}` };
  return { available: true, reason: null };
}

/** A checked spec answered, with the previous period when asked. */
export async function answer(ctx: SiteCtx, spec: NormalSpec): Promise<StatsResult> {
  const qn: Question = { ...spec };
  const current = await figures(ctx, qn);
  const result: StatsResult = {
    metrics: spec.metrics,
    by: spec.by,
    lane: spec.lane,
    timezone: ctx.timezone,
    from: spec.range.from,
    to: spec.range.to,
    source: current.source,
    counts: countNames(spec.metrics, spec.sort),
    sort: spec.sort,
    totals: current.totals,
    rows: current.rows,
    truncated: current.truncated,
  };
  if (spec.compare) {
    const comparison = await comparability(ctx, CATALOGUE[spec.metrics].table, spec.range.from);
    result.comparison = comparison;
    if (comparison.available) {
      const range = previousRange(spec.range);
      const prev = await figures(ctx, { ...qn, range });
      result.previous = { from: range.from, to: range.to, totals: prev.totals, rows: prev.rows };
    } else result.previous = null;
  }
  return result;
}
