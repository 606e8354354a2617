// People sessions from raw pageviews, for the results routes. A session is the human pageviews of one
// visitor code from a `session_start` pageview up to the next one, within one UTC `day` partition (codes
// rotate daily, so a visit never crosses midnight UTC): its key is (day, visitor, n), n counting the
// visitor's session starts that day up to the pageview. A pageview before the visitor's first session
// start of the day (n = 0, e.g. a visit that crossed midnight) belongs to no session.
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
 * The CTE `s`: the pageviews of the visitor-days listed by the CTE `touched` (day, visitor), each with
 * its session number `sn` (0: before the first session start). A session start sorts first among
 * pageviews of the same instant.
 */
export const SESSIONS_CTE = `s as materialized (
      select p.day, p.pageview_id, p.visitor, p.path,
        sum(case when p.session_start then 1 else 0 end) over (
          partition by p.day, p.visitor order by p.at, p.session_start desc, p.pageview_id
          rows between unbounded preceding and current row) as sn
      from pv p
      where (p.day, p.visitor) in (select day, visitor from touched)
    )`;
