// The one statement of a journeys answer: it builds sessions from raw pageviews, their steps at the
// chosen zoom, their goals and A/B exposures, and gives back groups of sessions with counts (never one
// row per session). Request text (anchor, goal matches, experiment keys) travels as bind parameters;
// the zoom picks one of three fixed step expressions.
//
// Session: the pageviews of one visitor code (it changes every UTC day, so a session never crosses the
// `day` partition) from a `session_start` pageview up to the next one, ordered by `at`, then `id`.
// Pageviews of a visitor code before its first `session_start` belong to no session. Pageviews with
// `journeys = false` (and their events) are dropped after the sessions are cut, so they never split one.
//
// A/B: a session counts in the variant of its first exposure to each experiment only, converted when the
// goal is reached at or after it, in the experiment results' order (features/results/experiment-statement.ts).
import type { JourneyLane, JourneyZoom } from '@us/shared';
import type { DayRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, Params, rangeCond, type Statement, statement, tzParam, utcDaysCond } from '../../analytics/sql.ts';
import type { GoalDef } from './goals.ts';

export interface JourneyQuestion {
  range: DayRange;
  zoom: JourneyZoom;
  who: JourneyLane;
  anchor: string | null;
  goals: readonly GoalDef[];
  /** 1-based index into the goal flags of the goal counted as converted for experiments, or 0. */
  convertedGoal: number;
  experimentKeys: readonly string[];
  /**
   * The variants the site's experiments declare, as `key\u0001variant`: the only ones counted (a page may name any
   * variant, and each made-up one became a row of every stored day; the answer lists the declared ones only).
   */
  declaredVariants: readonly string[];
}

/** The A/B part of a journeys question: the site's experiment keys and their declared variants. */
export const abOf = (experiments: readonly { key: string; variants: readonly string[] }[]) => ({
  experimentKeys: experiments.map((e) => e.key),
  declaredVariants: experiments.flatMap((e) => e.variants.map((v) => `${e.key}\u0001${v}`)),
});

/**
 * `part = 'p'`: sessions grouped by their first steps (`steps`, at most 5), their steps around the
 * anchor's first occurrence (`win`, with `pre` steps before it; null without anchor or when the
 * session never reaches it) and their goal flags (one per goal, in settings order).
 * `part = 'x'`: per experiment variant the sessions whose first exposure to the experiment showed it, and
 * how many of them reached the converted goal at or after that exposure (as the experiment results count).
 */
export interface JourneyRow {
  part: 'p' | 'x';
  steps: string[] | null;
  win: string[] | null;
  pre: number | null;
  goals: boolean[] | null;
  experiment: string | null;
  variant: string | null;
  sessions: number;
  converted: number | null;
}

/** The step label of a pageview at zoom page and section (its events carry their pageview's label). */
const PAGE_STEP: Record<Exclude<JourneyZoom, 'element'>, (path: string) => string> = {
  page: (path) => path,
  // '/blog/post-1' → '/blog', '/' → '/' (paths carry no query string).
  section: (path) => `'/' || split_part(substr(${path}, 2), '/', 1)`,
};

/** Order of the stream within a visitor code's day: each event right after its own pageview. */
const ORDER = 'pat, pid, ord, at, id';

export function journeyStatement(ctx: SiteCtx, q: JourneyQuestion): Statement<JourneyRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const from = p.add(q.range.from, 'date');
  const to = p.add(q.range.to, 'date');
  const pvConds = [
    `site_id = ${site}`,
    rangeCond(p, tz, q.range) + utcDaysCond(p, ctx.utcDays),
    laneCond(p, 'pageviews', ctx.windows, q.who),
  ].join('\n        and ');

  // Rows are made narrow before the sort: a label, one flag per goal and an exposure, nothing else.
  // Path goals are met on pageview rows (ord 0), event goals on event rows (ord 1; `path` there is their pageview's).
  const goalConds = q.goals.map((g) => {
    if (g.type === 'event') return `(ord = 1 and kind = 'event' and name = ${p.add(g.match, 'text')})`;
    const match = g.prefix
      ? `left(path, ${p.add(g.match.length, 'int')}) = ${p.add(g.match, 'text')}`
      : `path = ${p.add(g.match, 'text')}`;
    return `(ord = 0 and ${match})`;
  });
  const rowGoals = goalConds.map((c, i) => `${c} as g${i}`);
  const cols = (list: string[]) => list.map((c) => `, ${c}`).join('');
  const goals = q.goals.length
    ? `array[${q.goals.map((_, i) => `coalesce(bool_or(g${i}), false)`).join(', ')}]`
    : 'array[]::boolean[]';
  const keys = p.add([...q.experimentKeys], 'text[]');
  const xp = `case when kind = 'exposure' and experiment = any(${keys}) then experiment || chr(1) || variant end`;
  // A/B rows (exposures and conversions) carry their pageview's place among pageviews of one instant, as the
  // experiment results order them (session start first, then by pageview_id); other rows null.
  const conv = q.convertedGoal > 0 && q.experimentKeys.length ? (goalConds[q.convertedGoal - 1] as string) : 'false';
  const tie = `case when ${xp} is not null or ${conv} then case when pstart then '' else pageview_id end end`;
  const pvLabel = q.zoom === 'element' ? 'null::text' : PAGE_STEP[q.zoom]('path');
  const evLabel = q.zoom === 'element' ? `case when kind = 'click' then name end` : PAGE_STEP[q.zoom]('path');
  // Page and section labels sit on every row of a pageview, so repeats collapse over the session's rows;
  // clicks are compared with the click before them only.
  const collapse = q.zoom === 'element' ? 'day, visitor, sn, label is null' : 'day, visitor, sn';

  const anchor = q.anchor === null ? null : p.add(q.anchor, 'text');
  const anchorStep = anchor === null ? 'null::bigint' : `min(i) filter (where step and label = ${anchor}) over s`;
  const windowCols =
    anchor === null
      ? 'null::text[] as win, null::int as pre'
      : `array_agg(label order by i) filter (where step and i between ai - 2 and ai + 2) as win,
             least(min(ai) - 1, 2)::int as pre`;
  const converted = q.convertedGoal > 0 ? 'count(*) filter (where f.n < c.last)::int' : 'null::int';

  // Pageview rows and their events' rows in one stream: a window over (day, pageview_id) gives each event
  // its pageview's visitor code, time, id, path and journeys flag (an event whose pageview is not in the
  // stream has none and is dropped), so one more window cuts sessions for both. No join between derived
  // sets: on a fresh partition the planner, knowing no sizes, looped over one for every row of the other.
  const sql = `
    with raw as (
      select day, pageview_id, 0 as ord, visitor, at, id, session_start, journeys, path,
             null::text as kind, null::text as name, null::text as experiment, null::text as variant
      from pageviews
      where ${pvConds}
      union all
      select day, pageview_id, 1, null, at, id, false, null, null, kind, name, experiment, variant
      from events
      where site_id = ${site}
        and day between ${from} - 1 and ${to} + 1${utcDaysCond(p, ctx.utcDays)}
        and kind in ('event', 'exposure', 'click')
    ),
    owned as (
      select day, pageview_id, ord, at, id, session_start, kind, name, experiment, variant,
             first_value(ord) over pv_of as head, first_value(visitor) over pv_of as visitor,
             first_value(session_start) over pv_of as pstart,
             first_value(at) over pv_of as pat, first_value(id) over pv_of as pid,
             first_value(journeys) over pv_of as journeys, first_value(path) over pv_of as path
      from raw
      window pv_of as (partition by day, pageview_id order by ord, id)
    ),
    stream as (
      select day, visitor, pat, pid, ord, at, id, session_start, journeys,
             case when ord = 0 then ${pvLabel} else ${evLabel} end as label,
             ${xp} as xp, ${tie} as tie${cols(rowGoals)}
      from owned
      where head = 0
    ),
    cut as (
      select *, count(*) filter (where session_start) over (partition by day, visitor order by ${ORDER}) as sn
      from stream
    ),
    marked as (
      select *, label is not null
                and label is distinct from lag(label) over (partition by ${collapse} order by ${ORDER}) as step
      from cut
      where sn > 0 and journeys
    ),
    numbered as (
      select *, count(*) filter (where step) over (partition by day, visitor, sn order by ${ORDER}) as i
      from marked
    ),
    anchored as (
      select *, ${anchorStep} as ai
      from numbered
      window s as (partition by day, visitor, sn)
    ),
    ses as (
      select array_agg(label order by i) filter (where step and i <= 5) as steps,
             ${windowCols},
             ${goals} as goals,
             -- A/B: exposures (xp) and conversions (null) in the experiment results' order: by pageview,
             -- then its exposures by variant name, then its events.
             array_agg(xp order by pat, tie, xp is null, split_part(xp, chr(1), 2)) filter (where tie is not null) as ab
      from anchored
      group by day, visitor, sn
    )
    select 'p' as part, steps, win, pre, goals, null::text as experiment, null::text as variant,
           count(*)::int as sessions, null::int as converted
    from ses
    group by steps, win, pre, goals
    union all
    -- Each exposed session in the variant of its first exposure to each experiment, converted when a
    -- conversion comes after it.
    select 'x', null, null, null, null, split_part(f.x, chr(1), 1), split_part(f.x, chr(1), 2), count(*)::int, ${converted}
    from ses
    cross join lateral (select max(n) as last from unnest(ab) with ordinality c(x, n) where x is null) c
    cross join lateral (
      select distinct on (split_part(x, chr(1), 1)) x, n
      from unnest(ab) with ordinality a(x, n)
      where x is not null
      order by split_part(x, chr(1), 1), n
    ) f
    where ab is not null and f.x = any(${p.add([...q.declaredVariants], 'text[]')})
    group by f.x`;
  return statement(sql, p);
}
