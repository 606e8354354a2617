// The experiment results' statement over raw days: per variant the People sessions shown it (an
// exposure row of the experiment in the session), those that reached the goal in the same session,
// and the events (not exposures) sent in them. Sessions: session-sql.ts.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import { type GoalMatcher, pathMatchSql } from './goal-match.ts';
import { FROM_PAGEVIEW_SQL, humanEventsSql, humanPageviewsCte, PAGEVIEW_OF, SESSION_NUMBER_SQL } from './session-sql.ts';

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
    -- Pageviews (they number the sessions and may reach a page goal), the experiment's exposures and the
    -- site's events, each after its pageview: one stream, sorted into sessions by windows (session-sql.ts).
    stream as (
      select day, pageview_id, 0 as tail, at, visitor, session_start, null::text as variant, 0 as events,
        (${kind} <> 'event' and ${pathMatchSql('path', kind, value)}) as reached
      from pv
      union all
      select day, pageview_id, 1, at, null, false, variant, 0, false
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'exposure'`, `name = ${keyParam}`, `experiment = ${keyParam}`, 'variant is not null'])} x
      union all
      select day, pageview_id, 1, at, null, false, null, 1, (${kind} = 'event' and name = ${value})
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`])} e
    ),
    attached as (
      select day, pageview_id, tail, session_start, variant, events, reached, ${FROM_PAGEVIEW_SQL}
      from stream window pv_of as (${PAGEVIEW_OF})
    ),
    numbered as (
      select day, s_visitor, variant, events, reached, ${SESSION_NUMBER_SQL} as sn from attached
    ),
    -- One row per session: the variants it was shown, its events, whether it reached the goal.
    per_session as (
      select array_agg(distinct variant) filter (where variant is not null) as variants,
        sum(events) as events, bool_or(reached) as reached
      from numbered
      where sn > 0 and s_visitor is not null
      group by day, s_visitor, sn
    )
    select v.variant,
      count(*)::float8 as sessions,
      count(*) filter (where ps.reached)::float8 as converted,
      sum(ps.events)::float8 as events
    from per_session ps cross join lateral unnest(ps.variants) as v(variant)
    group by v.variant`;
  return statement(sql, p);
}
