// The summary (GET /v1/sites/{id}/summary): headline measures of People traffic, always compared.
import { SUMMARY_MEASURES, type Summary, type SummaryMeasure, type SummaryMeasureName, type SummaryQuery } from '@us/shared';
import { badRequest } from '../../errors.ts';
import { SEARCH_REFERRER_SQL } from './catalogue.ts';
import { comparability, type Source } from './engine.ts';
import { type DayRange, previousRange, resolveRange, splitRange } from './range.ts';
import { splitForQuestion } from './rolled-days.ts';
import type { SiteCtx } from './site-ctx.ts';
import { checkWhere, whereFromParams } from './spec.ts';
import { laneCond, Params, rangeCond, runSql, tzParam, whereConds } from './sql.ts';

const KNOWN = new Set(['id', 'days', 'from', 'to']);

interface Base {
  sessions: number;
  pageviews: number;
  fromSearch: number;
  singlePage: number;
  visibleMs: number;
}

const ZERO: Base = { sessions: 0, pageviews: 0, fromSearch: 0, singlePage: 0, visibleMs: 0 };

async function rawBase(ctx: SiteCtx, r: DayRange, where: Record<string, string>): Promise<Base> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const conds = [
    `site_id = ${site}`,
    rangeCond(p, tz, r),
    laneCond(p, 'pageviews', ctx.windows, 'human'),
    ...whereConds(p, 'pageviews', where),
  ];
  const leavesFrom = p.add(r.from, 'date');
  const leavesTo = p.add(r.to, 'date');
  const sql = `with pv as (select pageview_id, visitor, session_start, referrer_host from pageviews where ${conds.join(' and ')})
    select count(*) filter (where session_start)::float8 as sessions,
           count(*)::float8 as pageviews,
           count(*) filter (where session_start and ${SEARCH_REFERRER_SQL})::float8 as from_search,
           (select count(*) from (select 1 from pv group by visitor having count(*) = 1) s)::float8 as single_page,
           (select coalesce(sum(l.time_on_page_ms), 0) from page_leaves l join pv on pv.pageview_id = l.pageview_id
             where l.site_id = ${site} and l.day between ${leavesFrom} - 1 and ${leavesTo} + 2)::float8 as visible_ms
    from pv`;
  const [row] = await runSql(ctx.em, sql, p);
  return figuresOf(row);
}

/** The figures of one answer row (raw or rollup statement: same column names). */
function figuresOf(row: Record<string, unknown> | undefined): Base {
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    sessions: n('sessions'),
    pageviews: n('pageviews'),
    fromSearch: n('from_search'),
    singlePage: n('single_page'),
    visibleMs: n('visible_ms'),
  };
}

async function rollupBase(ctx: SiteCtx, r: DayRange): Promise<Base> {
  const p = new Params();
  const sql = `select
      coalesce(sum(count) filter (where metric_set = 'sessions' and dimension = ''), 0)::float8 as sessions,
      coalesce(sum(count) filter (where metric_set = 'pageviews' and dimension = ''), 0)::float8 as pageviews,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'from_search'), 0)::float8 as from_search,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'single_page'), 0)::float8 as single_page,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'visible_ms'), 0)::float8 as visible_ms
    from daily_rollups
    where site_id = ${p.add(ctx.siteId, 'uuid')} and day between ${p.add(r.from, 'date')} and ${p.add(r.to, 'date')}
      and lane = 'human' and value = '' and metric_set in ('sessions', 'pageviews', 'summary')`;
  const [row] = await runSql(ctx.em, sql, p);
  return figuresOf(row);
}

async function baseOf(ctx: SiteCtx, r: DayRange, where: Record<string, string>): Promise<{ base: Base; source: Source }> {
  const first = Object.keys(where)[0];
  if (splitRange(r, ctx.rawStart).rollup && first !== undefined) {
    throw badRequest(
      `where.${first}`,
      `Filtered summaries exist only for the last 90 days: choose days from ${ctx.rawStart} on, or drop the filter`,
    );
  }
  const split = await splitForQuestion(ctx, r, first === undefined);
  const [raw, rollup] = await Promise.all([
    split.raw ? rawBase(ctx, split.raw, where) : ZERO,
    split.rollup ? rollupBase(ctx, split.rollup) : ZERO,
  ]);
  const base: Base = {
    sessions: raw.sessions + rollup.sessions,
    pageviews: raw.pageviews + rollup.pageviews,
    fromSearch: raw.fromSearch + rollup.fromSearch,
    singlePage: raw.singlePage + rollup.singlePage,
    visibleMs: raw.visibleMs + rollup.visibleMs,
  };
  return { base, source: split.raw && split.rollup ? 'mixed' : split.rollup ? 'rollups' : 'raw' };
}

const round = (n: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

function values(b: Base): Record<SummaryMeasureName, number> {
  const per = (n: number) => (b.sessions > 0 ? n / b.sessions : 0);
  return {
    sessions: b.sessions,
    pageviews: b.pageviews,
    fromSearch: b.fromSearch,
    averageSession: round(per(b.visibleMs) / 1000, 1),
    bounceRate: Math.min(100, round(per(b.singlePage) * 100, 1)),
    singlePageVisits: b.singlePage,
    pagesPerSession: round(per(b.pageviews), 2),
  };
}

/** Down is good for these; up is good for every other measure. */
const LOWER_IS_BETTER = new Set<SummaryMeasureName>(['bounceRate', 'singlePageVisits']);

export function measure(name: SummaryMeasureName, value: number, previous: number | null): SummaryMeasure {
  const change = previous === null || previous === 0 ? null : round(((value - previous) / previous) * 100, 1);
  let tone: SummaryMeasure['tone'] = 'flat';
  if (change !== null && Math.abs(change) >= 1) tone = change > 0 !== LOWER_IS_BETTER.has(name) ? 'good' : 'bad';
  return { value, previous, change, tone };
}

export async function summaryOf(ctx: SiteCtx, input: SummaryQuery): Promise<Summary> {
  const where = checkWhere('pageviews', whereFromParams(input, KNOWN));
  const range = resolveRange(input, ctx.today);
  const prevRange = previousRange(range);
  const [current, comparison] = await Promise.all([baseOf(ctx, range, where), comparability(ctx, 'pageviews', range.from)]);
  const prev = comparison.available ? values((await baseOf(ctx, prevRange, where)).base) : null;
  const now = values(current.base);
  const measures = Object.fromEntries(
    SUMMARY_MEASURES.map((m) => [m, measure(m, now[m], prev ? prev[m] : null)]),
  ) as Summary['measures'];
  return {
    timezone: ctx.timezone,
    from: range.from,
    to: range.to,
    previousFrom: prevRange.from,
    previousTo: prevRange.to,
    comparison,
    source: current.source,
    measures,
  };
}
