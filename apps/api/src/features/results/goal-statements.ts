// The goal results' statements: raw days (visits, completions, sessions and a daily series per goal,
// in one statement) and rollup days (completions per goal and day only). Goals travel as arrays of
// bind parameters (index, match kind, value); every identifier is written here.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { localDaySql, Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import { type GoalMatcher, pathMatchSql } from './goal-match.ts';
import { humanEventsSql, humanPageviewsCte, SESSIONS_CTE } from './session-sql.ts';

/** part `visits` (n), `goal` (i, n = completions, sessions) or `day` (i, day, n = completions). */
export interface RawGoalRow {
  part: 'visits' | 'goal' | 'day';
  i: number | null;
  day: string | null;
  n: number;
  sessions: number | null;
}

function goalsCte(p: Params, matchers: GoalMatcher[]): string {
  const ids = matchers.map((_, i) => i);
  return `goals (i, kind, value) as (
      select * from unnest(${p.add(ids, 'int[]')}, ${p.add(
        matchers.map((m) => m.kind),
        'text[]',
      )}, ${p.add(
        matchers.map((m) => m.value),
        'text[]',
      )})
    )`;
}

export function rawGoalStatement(ctx: SiteCtx, days: DayRange, matchers: GoalMatcher[]): Statement<RawGoalRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const eventNames = matchers.filter((m) => m.kind === 'event').map((m) => m.value);
  const sql = `
    with ${goalsCte(p, matchers)},
    ${humanPageviewsCte(ctx, p, tz, days)},
    hits as materialized (
      select g.i, p.day, p.pageview_id, p.visitor, ${localDaySql(tz, 'p.at')} as lday
      from pv p join goals g on g.kind <> 'event' and ${pathMatchSql('p.path', 'g.kind', 'g.value')}
      union all
      select g.i, e.day, e.pageview_id, p.visitor, ${localDaySql(tz, 'e.at')} as lday
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`, `name = any(${p.add(eventNames, 'text[]')})`])} e
      join goals g on g.kind = 'event' and e.name = g.value
      left join pv p on p.day = e.day and p.pageview_id = e.pageview_id
    ),
    touched as (select distinct day, visitor from hits where visitor is not null),
    ${SESSIONS_CTE},
    goal_sessions as materialized (
      select i, count(*) as sessions
      from (select distinct h.i, s.day, s.visitor, s.sn
            from hits h join s on s.day = h.day and s.pageview_id = h.pageview_id
            where s.sn > 0) x
      group by i
    )
    select 'visits' as part, null::int as i, null::text as day,
      (select count(*) from pv where session_start)::float8 as n, null::float8 as sessions
    union all
    select 'goal', h.i, null, count(*)::float8, coalesce(max(gs.sessions), 0)::float8
    from hits h left join goal_sessions gs on gs.i = h.i
    group by h.i
    union all
    select 'day', i, lday, count(*)::float8, null
    from hits
    group by i, lday`;
  return statement(sql, p);
}

/** Completions per goal and rolled-up day: events by name, pageviews by page (lane human as stored). */
export function rollupGoalStatement(
  ctx: SiteCtx,
  days: DayRange,
  matchers: GoalMatcher[],
): Statement<{ i: number; day: string; n: number }> {
  const p = new Params();
  const sql = `
    with ${goalsCte(p, matchers)}
    select g.i, to_char(r.day, 'YYYY-MM-DD') as day, sum(r.count)::float8 as n
    from daily_rollups r
    join goals g on (g.kind = 'event' and r.metric_set = 'events' and r.dimension = 'event' and r.value = g.value)
      or (g.kind <> 'event' and r.metric_set = 'pageviews' and r.dimension = 'page' and ${pathMatchSql('r.value', 'g.kind', 'g.value')})
    where r.site_id = ${p.add(ctx.siteId, 'uuid')}
      and r.day between ${p.add(days.from, 'date')} and ${p.add(days.to, 'date')}
      and r.lane = 'human'
    group by g.i, r.day`;
  return statement(sql, p);
}
