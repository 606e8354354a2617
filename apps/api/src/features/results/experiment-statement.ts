// The experiment results' statement over raw days: per variant the People sessions whose first exposure to
// the experiment (an exposure row of the experiment in the session) showed it, those that reached the goal at
// or after that exposure, and the events (not exposures) sent from it on. Sessions: session-sql.ts.
//
// Stream order within a session: pageviews by time, each followed by its exposures (sent with the pageview's
// own report, so tail 1) and then its events (tail 2: the page sends them after it loaded). So an event sent
// from the page that showed the variant counts; a page goal reached by that very pageview does not (the page
// was reached before it showed anything), a later pageview of the same path does. Exposures of one pageview
// are ordered by variant name, so a session shown two variants at once belongs to the same one every time.
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { Params, type Statement, statement, tzParam } from '../../analytics/sql.ts';
import { type GoalMatcher, pathMatchSql } from './goal-match.ts';
import { FROM_PAGEVIEW_SQL, humanEventsSql, humanPageviewsCte, PAGEVIEW_OF, SESSION_NUMBER_SQL } from './session-sql.ts';

export interface VariantRow {
  variant: string;
  /** Sessions whose first exposure showed this variant (each session in one variant only). */
  sessions: number;
  /** Of those, sessions reaching the goal at or after that first exposure. */
  converted: number;
  /** Events (not exposures) sent in those sessions at or after that first exposure. */
  events: number;
  /** Of those sessions, the ones later shown another variant as well (they count here only). */
  mixed: number;
}

/** The experiment asked about: its key and its declared variants. */
export interface ExperimentRef {
  key: string;
  variants: readonly string[];
}

/**
 * Variants not declared that one statement (a stored day) keeps at most, the largest: a page names any variant it
 * likes, and 50,000 made-up ones a day were each stored, read and summed to show 20. Declared variants are all kept.
 */
export const UNDECLARED_KEPT = 200;

/** `goal` null: no goal, converted is 0. */
export function experimentStatement(
  ctx: SiteCtx,
  days: DayRange,
  experiment: ExperimentRef,
  goal: GoalMatcher | null,
): Statement<VariantRow> {
  const { key } = experiment;
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const kind = p.add(goal?.kind ?? '', 'text');
  const value = p.add(goal?.value ?? '', 'text');
  const keyParam = p.add(key, 'text');
  const sql = `
    with ${humanPageviewsCte(ctx, p, tz, days)},
    -- Pageviews (they number the sessions and may reach a page goal), then the experiment's exposures and
    -- then the site's events, each after its pageview: one stream, sorted into sessions by windows
    -- (session-sql.ts).
    stream as (
      select day, pageview_id, 0 as tail, at, visitor, session_start, null::text as variant, 0 as events,
        (${kind} <> 'event' and ${pathMatchSql('path', kind, value)}) as reached
      from pv
      union all
      select day, pageview_id, 1, at, null, false, variant, 0, false
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'exposure'`, `name = ${keyParam}`, `experiment = ${keyParam}`, 'variant is not null'])} x
      union all
      select day, pageview_id, 2, at, null, false, null, 1, (${kind} = 'event' and name = ${value})
      from ${humanEventsSql(ctx, p, tz, days, [`kind = 'event'`])} e
    ),
    attached as (
      select day, pageview_id, tail, session_start, variant, events, reached, ${FROM_PAGEVIEW_SQL}
      from stream window pv_of as (${PAGEVIEW_OF})
    ),
    -- sn: the row's session; cx: the visitor's exposures that day up to the row, in stream order (the
    -- session's order with exposures of one pageview by variant name). The same sort serves both windows.
    numbered as (
      select day, s_visitor, variant, events, reached, ${SESSION_NUMBER_SQL} as sn,
        count(variant) over (partition by day, s_visitor order by pv_at, pv_start desc, pageview_id, tail, variant
          rows between unbounded preceding and current row) as cx
      from attached
    ),
    -- Each session cut at its exposures: the part before the first one (no exposure: not counted), then one
    -- part from each exposure on (its variant the exposure's, the only one in the part).
    parts as (
      select day, s_visitor, sn, cx, max(variant) as variant, sum(events) as events, bool_or(reached) as reached
      from numbered
      where sn > 0 and s_visitor is not null
      group by day, s_visitor, sn, cx
    ),
    -- One row per exposed session: the variant first shown, whether another one was shown too, the events
    -- and the goal from the first exposure on.
    per_session as (
      select (array_agg(variant order by cx) filter (where variant is not null))[1] as variant,
        count(distinct variant) > 1 as mixed,
        sum(events) filter (where variant is not null) as events,
        coalesce(bool_or(reached) filter (where variant is not null), false) as reached
      from parts
      group by day, s_visitor, sn
      having count(variant) > 0
    ),
    by_variant as (
      select variant,
        count(*)::float8 as sessions,
        count(*) filter (where reached)::float8 as converted,
        sum(events)::float8 as events,
        count(*) filter (where mixed)::float8 as mixed,
        variant = any(${p.add([...experiment.variants], 'text[]')}) as declared
      from per_session
      group by variant
    )
    select variant, sessions, converted, events, mixed
    from (
      select *, row_number() over (partition by declared order by sessions desc, variant) as n from by_variant
    ) ranked
    where declared or n <= ${UNDECLARED_KEPT}`;
  return statement(sql, p);
}
