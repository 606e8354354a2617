// People sessions from raw pageviews, for the results routes. A session is the human pageviews of one
// visitor code from a `session_start` pageview up to the next one, within one UTC `day` partition (codes
// rotate daily, so a visit never crosses midnight UTC): its key is (day, visitor, n), n counting the
// visitor's session starts that day up to the pageview. A pageview before the visitor's first session
// start of the day (n = 0, e.g. a visit that crossed midnight) belongs to no session. An event belongs to
// its pageview's session.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, type Params, rangeCond, utcDaysCond } from '../../analytics/sql.ts';

/**
 * The CTE `pv`: human pageviews (bot windows applied, as the summary reads them) of the local days, not
 * materialized, so each use is its own scan filtered for what it needs rather than one copy of every row.
 */
export function humanPageviewsCte(ctx: SiteCtx, p: Params, tz: string, days: DayRange): string {
  return `pv as not materialized (
      select day, pageview_id, visitor, at, session_start, path
      from pageviews
      where site_id = ${p.add(ctx.siteId, 'uuid')}
        and ${rangeCond(p, tz, days)}${utcDaysCond(p, ctx.utcDays)}
        and ${laneCond(p, 'pageviews', ctx.windows, 'human')}
    )`;
}

/**
 * Human events (bot windows applied, as the events metric set reads them) of the local days meeting
 * `extra` (SQL over the events table's columns), as a subquery to alias.
 */
export function humanEventsSql(ctx: SiteCtx, p: Params, tz: string, days: DayRange, extra: string[]): string {
  const conds = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    rangeCond(p, tz, days) + utcDaysCond(p, ctx.utcDays),
    laneCond(p, 'events', ctx.windows, 'human'),
    ...extra,
  ];
  return `(
      select day, pageview_id, at, name, variant
      from events
      where ${conds.join('\n        and ')}
    )`;
}

/**
 * Columns giving each row of a stream its pageview's visitor, time and session start: the stream holds
 * pageview rows (`tail` 0) and rows of their events (`tail` > 0, visitor null), each with its `day` and
 * `pageview_id`; use with `window pv_of as (${PAGEVIEW_OF})`. An event whose pageview is not in the stream
 * (not a People pageview) gets no visitor, so it belongs to no session.
 */
export const PAGEVIEW_OF = 'partition by day, pageview_id order by tail';
export const FROM_PAGEVIEW_SQL = `first_value(visitor) over pv_of as s_visitor, first_value(at) over pv_of as pv_at,
        first_value(session_start) over pv_of as pv_start`;

/**
 * The session number `sn` of every row of such a stream (after FROM_PAGEVIEW_SQL): a row belongs to the
 * session of its pageview, numbered by the visitor's session starts that day up to that pageview (0: before
 * the first). A session start sorts first among pageviews of the same instant; a pageview's events right
 * after it.
 *
 * Windows over the rows instead of joins between derived sets or of events to pageviews: the planner cannot
 * know their sizes, and on a fresh partition it looped over one for every row of the other (sessions of
 * hundreds of pageviews ran past the time limit). Sorting is n log n whatever the traffic.
 */
export const SESSION_NUMBER_SQL = `sum(case when tail = 0 and session_start then 1 else 0 end) over (
          partition by day, s_visitor order by pv_at, pv_start desc, pageview_id, tail
          rows between unbounded preceding and current row)`;
