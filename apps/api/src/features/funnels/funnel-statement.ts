// A funnel's statement over raw days: per step, the People sessions that reached it after every step before
// it, in order, with the visitor-days among them and how many took how long from the step before (seconds
// in buckets, so days stored apart add up to one median: funnel-time.ts). A step is reached at the first
// matching row after the moment the previous step was reached (strictly later, so one pageview never counts
// for two steps); an event belongs to its pageview's session.
//
// Sessions are as session-sql.ts defines them: a visitor code's human pageviews from a session start to the
// next, within one UTC day, found by windows rather than joins (why: session-sql.ts). Each row carries a
// bitmask of the steps it matches, each session's matching rows become two arrays, and the walk through the
// steps reads only the session's own arrays: n log n in the rows, whatever sessions the traffic makes.
// Steps travel as bind parameters; every identifier is written here.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, Params, rangeCond, type Statement, statement, tzParam, utcDaysCond, whereConds } from '../../analytics/sql.ts';
import {
  FROM_PAGEVIEW_SQL,
  type GoalMatcher,
  humanEventsSql,
  PAGEVIEW_OF,
  pathMatchSql,
  SESSION_NUMBER_SQL,
} from '../results/index.ts';
import { timeBucketSql } from './funnel-time.ts';

/** `step`: the step's visitors and sessions; `time`: `n` sessions took `seconds` (a bucket) from the step before. */
export type FunnelStepRow =
  | { part: 'step' /** 0 for the first step. */; i: number; visitors: number; sessions: number }
  | { part: 'time'; i: number; seconds: number; n: number };

/** SQL of the bitmask of the steps a row matches: one bit per step (`1 << i`), 0 when none. */
function maskSql(steps: readonly GoalMatcher[], matches: (m: GoalMatcher) => string | null): string {
  const bits = steps.flatMap((m, i) => {
    const cond = matches(m);
    return cond ? [`(case when ${cond} then ${1 << i} else 0 end)`] : [];
  });
  return bits.length ? bits.join(' | ') : '0';
}

/** The step's reach time: the first matching row of the session after the step before (none for step 0). */
function walkSql(i: number): string {
  const after = i === 0 ? '' : ` and a > t${i - 1}.t`;
  return `cross join lateral (select min(a) as t from unnest(s.ats, s.ms) u(a, m) where m & ${1 << i} <> 0${after}) t${i}`;
}

export function funnelStatement(
  ctx: SiteCtx,
  days: DayRange,
  steps: GoalMatcher[],
  where: Record<string, string> = {},
): Statement<FunnelStepRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const pageMask = maskSql(steps, (m) =>
    m.kind === 'event' ? null : pathMatchSql('path', p.add(m.kind, 'text'), p.add(m.value, 'text')),
  );
  const eventMask = maskSql(steps, (m) => (m.kind === 'event' ? `name = ${p.add(m.value, 'text')}` : null));
  const eventNames = steps.filter((m) => m.kind === 'event').map((m) => m.value);
  const filters = whereConds(p, 'pageviews', where);
  const kept = filters.length ? filters.join(' and ') : 'true';
  const sql = `
    with pv as not materialized (
      select day, pageview_id, visitor, at, session_start, ${pageMask} as m, ${kept} as ok
      from pageviews
      where site_id = ${p.add(ctx.siteId, 'uuid')}
        and ${rangeCond(p, tz, days)}${utcDaysCond(p, ctx.utcDays)}
        and ${laneCond(p, 'pageviews', ctx.windows, 'human')}
    ),
    -- Pageviews and the steps' events in one stream, sorted into sessions by windows (session-sql.ts).
    stream as (
      select day, pageview_id, 0 as tail, at, visitor, session_start, m, ok from pv
      union all
      select day, pageview_id, 1, at, null, false, ${eventMask}, false
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`, `name = any(${p.add(eventNames, 'text[]')})`])} e
    ),
    attached as (
      select day, pageview_id, tail, at, session_start, m, ok, ${FROM_PAGEVIEW_SQL}
      from stream window pv_of as (${PAGEVIEW_OF})
    ),
    numbered as (
      select day, s_visitor, at, m, tail = 0 and session_start as starts, ok, ${SESSION_NUMBER_SQL} as sn
      from attached
    ),
    -- Each session entering the funnel (some row matches step 1; its start meets the filters): its matching rows.
    s as (
      select day, s_visitor as visitor, sn,
        array_agg(at order by at) filter (where m <> 0) as ats,
        array_agg(m order by at) filter (where m <> 0) as ms
      from numbered
      where sn > 0 and s_visitor is not null and (m <> 0 or starts)
      group by day, s_visitor, sn
      having bit_or(m) & 1 <> 0 and bool_or(starts and ok)
    ),
    walk as materialized (
      select s.day, s.visitor, ${steps.map((_, i) => `t${i}.t as t${i}`).join(', ')}
      from s
      ${steps.map((_, i) => walkSql(i)).join('\n      ')}
    )
    ${steps
      .map(
        (_, i) => `select 'step' as part, ${i} as i, count(distinct (day, visitor))::int as visitors,
      count(*)::int as sessions, null::float8 as seconds, null::int as n from walk where t${i} is not null`,
      )
      .join('\n    union all\n    ')}
    ${steps
      .slice(1)
      .map(
        (_, k) => `union all
    select 'time', ${k + 1}, null, null, ${timeBucketSql(`extract(epoch from t${k + 1} - t${k})`)}, count(*)::int
      from walk where t${k + 1} is not null group by 5`,
      )
      .join('\n    ')}
    order by part, i, seconds`;
  return statement<FunnelStepRow>(sql, p);
}
