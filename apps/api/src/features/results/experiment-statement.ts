// The experiment results' statement over raw days: per variant the People sessions shown it (an
// exposure row of the experiment in the session), those that reached the goal in the same session,
// and the events (not exposures) sent in them. Sessions: session-sql.ts.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';
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
    site_events as materialized (
      select day, pageview_id, name from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`])} e
    ),
    session_events as materialized (
      select s.day, s.visitor, s.sn, count(*) as events,
        bool_or(${kind} = 'event' and e.name = ${value}) as reached
      from site_events e
      join s on s.day = e.day and s.pageview_id = e.pageview_id
      where s.sn > 0
      group by s.day, s.visitor, s.sn
    ),
    path_sessions as materialized (
      select distinct day, visitor, sn from s
      where sn > 0 and ${kind} <> 'event' and ${pathMatchSql('path', kind, value)}
    ),
    -- One row per session, then one per variant it was shown: a union and groupings instead of joins,
    -- so no plan can pair every exposed session with every session's events.
    per_session as (
      select array_agg(distinct variant) filter (where variant is not null) as variants,
        coalesce(sum(events), 0) as events, coalesce(bool_or(reached), false) as reached
      from (
        select day, visitor, sn, variant, 0::bigint as events, false as reached from exposed
        union all
        select day, visitor, sn, null, events, reached from session_events
        union all
        select day, visitor, sn, null, 0, true from path_sessions
      ) u
      group by day, visitor, sn
    )
    select v.variant,
      count(*)::float8 as sessions,
      count(*) filter (where ps.reached)::float8 as converted,
      sum(ps.events)::float8 as events
    from per_session ps cross join lateral unnest(ps.variants) as v(variant)
    group by v.variant`;
  return statement(sql, p);
}
