// A funnel's statement over raw days: per step, the People sessions (session-sql.ts) that reached it after
// every step before it, in order, with the visitor-days among them and the median seconds from the step
// before. A step is reached at the first matching row after the moment the previous step was reached
// (strictly later, so one pageview never counts for two steps); an event belongs to its pageview's session.
// Steps travel as arrays of bind parameters (index, match kind, value); every identifier is written here.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, Params, rangeCond, type Statement, statement, tzParam, utcDaysCond, whereConds } from '../../analytics/sql.ts';
import { type GoalMatcher, humanEventsSql, humanPageviewsCte, pathMatchSql, SESSIONS_CTE } from '../results/index.ts';

export interface FunnelStepRow {
  /** 0 for the first step. */
  i: number;
  visitors: number;
  sessions: number;
  /** Median seconds from the previous step; null for the first. */
  median_seconds: number | null;
}

/** One CTE per step after the first: the sessions of the step before, each with its first match after it. */
function reachedCte(i: number): string {
  return `r${i} as materialized (
      select r.day, r.visitor, r.sn, min(h.at) as t, extract(epoch from min(h.at) - r.t) as dt
      from r${i - 1} r
      join sh h on h.day = r.day and h.visitor = r.visitor and h.sn = r.sn and h.i = ${i} and h.at > r.t
      group by r.day, r.visitor, r.sn, r.t
    )`;
}

/**
 * The sessions whose first pageview (the session start) meets the filters: the CTE `kept`, and the condition
 * on the first step's rows. Nothing without filters.
 */
function keptSessions(ctx: SiteCtx, p: Params, tz: string, days: DayRange, where: Record<string, string>) {
  if (!Object.keys(where).length) return { cte: '', cond: '' };
  const conds = [
    `site_id = ${p.add(ctx.siteId, 'uuid')}`,
    rangeCond(p, tz, days) + utcDaysCond(p, ctx.utcDays),
    laneCond(p, 'pageviews', ctx.windows, 'human'),
    'session_start',
    ...whereConds(p, 'pageviews', where),
  ];
  return {
    cte: `,
    kept as materialized (
      select s.day, s.visitor, s.sn
      from s join (select day, pageview_id from pageviews where ${conds.join(' and ')}) st
        on st.day = s.day and st.pageview_id = s.pageview_id
    )`,
    cond: ' and (day, visitor, sn) in (select day, visitor, sn from kept)',
  };
}

export function funnelStatement(
  ctx: SiteCtx,
  days: DayRange,
  steps: GoalMatcher[],
  where: Record<string, string> = {},
): Statement<FunnelStepRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const eventNames = steps.filter((m) => m.kind === 'event').map((m) => m.value);
  const later = steps.slice(1).map((_, k) => reachedCte(k + 1));
  const kept = keptSessions(ctx, p, tz, days, where);
  const sql = `
    with steps (i, kind, value) as (
      select * from unnest(${p.add(
        steps.map((_, i) => i),
        'int[]',
      )}, ${p.add(
        steps.map((m) => m.kind),
        'text[]',
      )}, ${p.add(
        steps.map((m) => m.value),
        'text[]',
      )})
    ),
    ${humanPageviewsCte(ctx, p, tz, days)},
    hits as materialized (
      select st.i, p.day, p.pageview_id, p.at
      from pv p join steps st on st.kind <> 'event' and ${pathMatchSql('p.path', 'st.kind', 'st.value')}
      union all
      select st.i, e.day, e.pageview_id, e.at
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`, `name = any(${p.add(eventNames, 'text[]')})`])} e
      join steps st on st.kind = 'event' and e.name = st.value
    ),
    -- Only visitor-days that reached the first step can enter the funnel.
    touched as (
      select distinct p.day, p.visitor from hits h join pv p on p.day = h.day and p.pageview_id = h.pageview_id
      where h.i = 0
    ),
    ${SESSIONS_CTE},
    sh as materialized (
      select h.i, s.day, s.visitor, s.sn, h.at
      from hits h join s on s.day = h.day and s.pageview_id = h.pageview_id
      where s.sn > 0
    )${kept.cte},
    r0 as materialized (
      select day, visitor, sn, min(at) as t, null::float8 as dt from sh where i = 0${kept.cond} group by day, visitor, sn
    )${later.length ? `,\n    ${later.join(',\n    ')}` : ''}
    ${steps
      .map(
        (_, i) => `select ${i} as i, count(distinct (day, visitor))::int as visitors, count(*)::int as sessions,
      (percentile_cont(0.5) within group (order by dt))::float8 as median_seconds from r${i}`,
      )
      .join('\n    union all\n    ')}
    order by i`;
  return statement<FunnelStepRow>(sql, p);
}
