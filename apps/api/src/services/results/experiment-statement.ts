// The experiment results' statement over raw days: per variant the People sessions shown it (an
// exposure row of the experiment in the session), those that reached the goal in the same session,
// and the events (not exposures) sent in them. Sessions: session-sql.ts.
import type { DayRange } from '../stats/range.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { Params, type Statement, statement, tzParam } from '../stats/sql.ts';
import { type GoalMatcher, pathMatchSql } from './goal-match.ts';
import { humanEventsSql, humanPageviewsCte, SESSIONS_CTE } from './session-sql.ts';

export interface VariantRow {
  variant: string;
  sessions: number;
  converted: number;
  events: number;
}

/** `goal` null: no goal, converted is 0. */
export function experimentStatement(ctx: SiteCtx, days: DayRange, key: string, goal: GoalMatcher | null): Statement<VariantRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const kind = p.add(goal?.kind ?? '', 'text');
  const value = p.add(goal?.value ?? '', 'text');
  const keyParam = p.add(key, 'text');
  const sql = `
    with ${humanPageviewsCte(ctx, p, tz, days)},
    exposures as materialized (
      select x.day, x.pageview_id, x.variant, p.visitor
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'exposure'`, `name = ${keyParam}`, `experiment = ${keyParam}`, 'variant is not null'])} x
      join pv p on p.day = x.day and p.pageview_id = x.pageview_id
    ),
    touched as (select distinct day, visitor from exposures),
    ${SESSIONS_CTE},
    exposed as materialized (
      select distinct x.variant, s.day, s.visitor, s.sn
      from exposures x join s on s.day = x.day and s.pageview_id = x.pageview_id
      where s.sn > 0
    ),
    session_events as materialized (
      select s.day, s.visitor, s.sn, count(*) as events,
        bool_or(${kind} = 'event' and e.name = ${value}) as reached
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`])} e
      join s on s.day = e.day and s.pageview_id = e.pageview_id
      where s.sn > 0
      group by s.day, s.visitor, s.sn
    ),
    path_sessions as materialized (
      select distinct day, visitor, sn from s
      where sn > 0 and ${kind} <> 'event' and ${pathMatchSql('path', kind, value)}
    )
    select x.variant,
      count(*)::float8 as sessions,
      count(*) filter (where coalesce(se.reached, false) or ps.sn is not null)::float8 as converted,
      coalesce(sum(se.events), 0)::float8 as events
    from exposed x
    left join session_events se on se.day = x.day and se.visitor = x.visitor and se.sn = x.sn
    left join path_sessions ps on ps.day = x.day and ps.visitor = x.visitor and ps.sn = x.sn
    group by x.variant`;
  return statement(sql, p);
}
