// The goal results' statements: raw days (visits, completions, sessions and a daily series per goal,
// in one statement) and rollup days (completions per goal and day only). Goals travel as arrays of
// bind parameters (index, match kind, value); every identifier is written here.
import type { DayRange } from '../../analytics/range.ts';
import { importedSource, rollupSource } from '../../analytics/rollup-source.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneSql, localDaySql, Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import { type GoalMatcher, pathMatchSql } from './goal-match.ts';
import { FROM_PAGEVIEW_SQL, humanEventsSql, humanPageviewsCte, PAGEVIEW_OF, SESSION_NUMBER_SQL } from './session-sql.ts';

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

/**
 * Events have no network columns, so a bot window naming a network (`AS…` or an operator) leaves them human while
 * their pageviews count as bots: an event whose pageview such a window takes is not a completion either. Nothing
 * without such windows. (A condition over the events table's own columns, for `humanEventsSql`.)
 */
function notOfNetworkBots(ctx: SiteCtx, p: Params): string[] {
  const windows = ctx.windows.filter((w) => w.asn !== null || w.asOrg !== null);
  if (windows.length === 0) return [];
  return [
    `not exists (select 1 from pageviews b
        where b.site_id = events.site_id and b.day = events.day and b.pageview_id = events.pageview_id
          and b.lane = 'human' and ${laneSql(p, 'pageviews', windows)} <> 'human')`,
  ];
}

export function rawGoalStatement(ctx: SiteCtx, days: DayRange, matchers: GoalMatcher[]): Statement<RawGoalRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const eventNames = matchers.filter((m) => m.kind === 'event').map((m) => m.value);
  const sql = `
    with ${goalsCte(p, matchers)},
    ${humanPageviewsCte(ctx, p, tz, days)},
    hits as materialized (
      select g.i, p.day, p.pageview_id, p.at, ${localDaySql(tz, 'p.at')} as lday
      from pv p join goals g on g.kind <> 'event' and ${pathMatchSql('p.path', 'g.kind', 'g.value')}
      union all
      select g.i, e.day, e.pageview_id, e.at, ${localDaySql(tz, 'e.at')} as lday
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`, `name = any(${p.add(eventNames, 'text[]')})`, ...notOfNetworkBots(ctx, p)])} e
      join goals g on g.kind = 'event' and e.name = g.value
    ),
    -- Pageviews (they number the sessions) and completions in one stream, each completion after its pageview;
    -- a completion without a People pageview counts, in no session.
    stream as (
      select day, pageview_id, 0 as tail, at, visitor, session_start, null::int as i from pv
      union all
      select day, pageview_id, 1, at, null, false, i from hits
    ),
    attached as (
      select i, day, pageview_id, tail, session_start, ${FROM_PAGEVIEW_SQL}
      from stream window pv_of as (${PAGEVIEW_OF})
    ),
    numbered as (
      select i, day, s_visitor, ${SESSION_NUMBER_SQL} as sn from attached
    ),
    goal_sessions as materialized (
      select i, count(distinct (day, s_visitor, sn)) as sessions
      from numbered where i is not null and s_visitor is not null and sn > 0 group by i
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
  read: 'rollups' | 'imported' = 'rollups',
): Statement<{ i: number; day: string; n: number }> {
  const p = new Params();
  const source = read === 'rollups' ? rollupSource : importedSource;
  const sql = `
    with ${goalsCte(p, matchers)}
    select g.i, to_char(r.day, 'YYYY-MM-DD') as day, sum(r.count)::float8 as n
    from ${source(p.add(ctx.siteId, 'uuid'), p.add(days.from, 'date'), p.add(days.to, 'date'))} r
    join goals g on (g.kind = 'event' and r.metric_set = 'events' and r.dimension = 'event' and r.value = g.value)
      or (g.kind <> 'event' and r.metric_set = 'pageviews' and r.dimension = 'page' and ${pathMatchSql('r.value', 'g.kind', 'g.value')})
    where r.lane = 'human'
      -- The join's two kinds of rows named again here, so only their rows are read (an index leads with them).
      and (r.metric_set, r.dimension) in (('events', 'event'), ('pageviews', 'page'))
    group by g.i, r.day`;
  return statement(sql, p);
}
