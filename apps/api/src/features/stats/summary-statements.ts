// The summary's two statements, one per source, giving the same columns so their figures add up:
// raw pageviews (with the leave reports' visible time) and the rollups' day totals and summary measures.
import { SEARCH_REFERRER_SQL } from '../../analytics/catalogue.ts';
import type { DayRange, RawRange } from '../../analytics/range.ts';
import { rollupSource } from '../../analytics/rollup-source.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, localDaySql, Params, rangeCond, type Statement, statement, tzParam, whereConds } from '../../analytics/sql.ts';
import { dimensionConds } from './rollup-statements.ts';

/** Every column a float8. */
export interface SummaryRow {
  sessions: number;
  pageviews: number;
  from_search: number;
  single_page: number;
  visible_ms: number;
}

/**
 * People traffic of raw days, filtered by `where`; single-page visits are visitor codes with one pageview
 * in a local day (per day, as the daily rollups count them).
 */
export function rawSummaryStatement(ctx: SiteCtx, days: RawRange, where: Record<string, string>): Statement<SummaryRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const conditions = [
    `site_id = ${site}`,
    rangeCond(p, tz, days),
    laneCond(p, 'pageviews', ctx.windows, 'human'),
    ...whereConds(p, 'pageviews', where),
  ];
  // A leave may be stored up to a day after its pageview, hence the wider day range of page_leaves.
  const sql = `
    with pv as (
      select pageview_id, visitor, ${localDaySql(tz)} as local_day, session_start, referrer_host, channel
      from pageviews
      where ${conditions.join('\n        and ')}
    )
    select
      count(*) filter (where session_start)::float8 as sessions,
      count(*)::float8 as pageviews,
      count(*) filter (where session_start and ${SEARCH_REFERRER_SQL})::float8 as from_search,
      (select count(*) from (select 1 from pv group by local_day, visitor having count(*) = 1) s)::float8 as single_page,
      (select coalesce(sum(l.time_on_page_ms), 0)
         from page_leaves l join pv on pv.pageview_id = l.pageview_id
         where l.site_id = ${site}
           and l.day between ${p.add(days.from, 'date')} - 1 and ${p.add(days.to, 'date')} + 2${
             // A leave comes after its pageview: rows from `after` on need only the leaves from then on.
             days.after ? ` and l.at >= ${p.add(days.after, 'timestamptz')}` : ''
           })::float8 as visible_ms
    from pv`;
  return statement(sql, p);
}

/**
 * People traffic of rolled-up days: the day-total rows and the `summary` measures kept beside them; with
 * a filter (one dimension or a kept pair: `dimension`), that dimension's rows of the filtered value, where
 * search sessions, single-page visitors and visible ms are kept per value (format 4).
 */
export function rollupSummaryStatement(
  ctx: SiteCtx,
  days: DayRange,
  filter?: { dimension: string; where: Record<string, string> },
): Statement<SummaryRow> {
  const p = new Params();
  // Imported history keeps no per-value summary measures: a filtered summary is of the site's own rollups.
  const source = `${rollupSource(p.add(ctx.siteId, 'uuid'), p.add(days.from, 'date'), p.add(days.to, 'date'), !filter)} rollups`;
  const range = `lane = 'human'`;
  if (filter) {
    const sum = (set: string) => `coalesce(sum(count) filter (where metric_set = '${set}'), 0)::float8`;
    const sql = `
    select ${sum('sessions')} as sessions, ${sum('pageviews')} as pageviews, ${sum('search_sessions')} as from_search,
      ${sum('single_page')} as single_page, ${sum('leave_ms')} as visible_ms
    from ${source}
    where ${range}
      and metric_set in ('sessions', 'pageviews', 'search_sessions', 'single_page', 'leave_ms')
      and ${dimensionConds(p, filter.dimension, filter.where).join('\n      and ')}`;
    return statement(sql, p);
  }
  const sql = `
    select
      coalesce(sum(count) filter (where metric_set = 'sessions' and dimension = ''), 0)::float8 as sessions,
      coalesce(sum(count) filter (where metric_set = 'pageviews' and dimension = ''), 0)::float8 as pageviews,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'from_search'), 0)::float8 as from_search,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'single_page'), 0)::float8 as single_page,
      coalesce(sum(count) filter (where metric_set = 'summary' and dimension = 'visible_ms'), 0)::float8 as visible_ms
    from ${source}
    where ${range}
      and value = ''
      -- Named pair by pair, so only these rows are read (an index leads with them), not every dimension's rows of each day.
      and (metric_set, dimension) in (('sessions', ''), ('pageviews', ''), ('summary', 'from_search'),
        ('summary', 'single_page'), ('summary', 'visible_ms'))`;
  return statement(sql, p);
}
