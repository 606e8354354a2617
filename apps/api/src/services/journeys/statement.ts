// The one statement of a journeys answer: it builds sessions from raw pageviews, their steps at the
// chosen zoom, their goals and A/B exposures, and gives back groups of sessions with counts (never one
// row per session). Request text (anchor, goal matches, experiment keys) travels as bind parameters;
// the zoom picks one of three fixed step expressions.
//
// Session: the pageviews of one visitor code (it changes every UTC day, so a session never crosses the
// `day` partition) from a `session_start` pageview up to the next one, ordered by `at`, then `id`.
// Pageviews of a visitor code before its first `session_start` belong to no session. Pageviews with
// `journeys = false` (and their events) are dropped after the sessions are cut, so they never split one.
import type { JourneyLane, JourneyZoom } from '@us/shared';
import type { DayRange } from '../stats/range.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { laneCond, Params, rangeCond, type Statement, statement, tzParam } from '../stats/sql.ts';
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
}

/**
 * `part = 'p'`: sessions grouped by their first steps (`steps`, at most 5), their steps around the
 * anchor's first occurrence (`win`, with `pre` steps before it; null without anchor or when the
 * session never reaches it) and their goal flags (one per goal, in settings order).
 * `part = 'x'`: sessions exposed to an experiment's variant and how many of them reached the goal.
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

/** The step a pageview is at zoom page and section; zoom element takes clicked labels from events. */
const PAGE_STEP: Record<Exclude<JourneyZoom, 'element'>, string> = {
  page: 'path',
  // '/blog/post-1' → '/blog', '/' → '/' (paths carry no query string).
  section: `'/' || split_part(substr(path, 2), '/', 1)`,
};

export function journeyStatement(ctx: SiteCtx, q: JourneyQuestion): Statement<JourneyRow> {
  const p = new Params();
  const tz = tzParam(p, ctx.timezone);
  const site = p.add(ctx.siteId, 'uuid');
  const from = p.add(q.range.from, 'date');
  const to = p.add(q.range.to, 'date');
  const pvConds = [`site_id = ${site}`, rangeCond(p, tz, q.range), laneCond(p, 'pageviews', ctx.windows, q.who)];

  const steps =
    q.zoom === 'element'
      ? `select day, visitor, sn, at, id, name as label from ev where kind = 'click'`
      : `select day, visitor, sn, at, id, ${PAGE_STEP[q.zoom]} as label from k`;

  const pathGoals = q.goals.map((g, i) =>
    g.type !== 'path'
      ? `false as g${i}`
      : g.prefix
        ? `bool_or(left(path, ${p.add(g.match.length, 'int')}) = ${p.add(g.match, 'text')}) as g${i}`
        : `bool_or(path = ${p.add(g.match, 'text')}) as g${i}`,
  );
  const eventGoals = q.goals.map((g, i) =>
    g.type === 'event' ? `bool_or(name = ${p.add(g.match, 'text')}) as g${i}` : `false as g${i}`,
  );
  const flags = q.goals.length
    ? `array[${q.goals.map((_, i) => `coalesce(pg.g${i}, false) or coalesce(eg.g${i}, false)`).join(', ')}]`
    : 'array[]::boolean[]';

  const anchor = q.anchor === null ? null : p.add(q.anchor, 'text');
  const windowCols =
    anchor === null
      ? 'null::text[] as win, null::int as pre'
      : `array_agg(sq.label order by sq.i) filter (where sq.i between a.ai - 2 and a.ai + 2) as win,
         least(min(a.ai) - 1, 2)::int as pre`;
  const anchorJoin =
    anchor === null
      ? ''
      : `left join (select day, visitor, sn, min(i) as ai from sq where label = ${anchor} group by 1, 2, 3) a
           using (day, visitor, sn)`;
  const converted = q.convertedGoal > 0 ? `count(*) filter (where ses.goals[${q.convertedGoal}])::int` : 'null::int';
  const keys = p.add([...q.experimentKeys], 'text[]');

  const sql = `
    with pv as (
      select day, visitor, pageview_id, at, id, path, journeys,
             count(*) filter (where session_start) over (partition by day, visitor order by at, id) as sn
      from pageviews
      where ${pvConds.join('\n        and ')}
    ),
    k as (
      select day, visitor, sn, pageview_id, at, id, path from pv where sn > 0 and journeys
    ),
    ev as (
      select k.day, k.visitor, k.sn, e.at, e.id, e.kind, e.name, e.experiment, e.variant
      from events e
      join k on e.day = k.day and e.pageview_id = k.pageview_id
      where e.site_id = ${site}
        and e.day between ${from} - 1 and ${to} + 1
        and e.kind in ('event', 'exposure', 'click')
    ),
    st as (
      select day, visitor, sn, at, id, label,
             lag(label) over (partition by day, visitor, sn order by at, id) as prev
      from (${steps}) x
    ),
    sq as (
      select day, visitor, sn, label, row_number() over (partition by day, visitor, sn order by at, id) as i
      from st
      where prev is distinct from label
    ),
    seqs as (
      select day, visitor, sn,
             array_agg(sq.label order by sq.i) filter (where sq.i <= 5) as steps,
             ${windowCols}
      from sq
      ${anchorJoin}
      group by day, visitor, sn
    ),
    pg as (
      select day, visitor, sn${pathGoals.map((g) => `, ${g}`).join('')} from k group by day, visitor, sn
    ),
    eg as (
      select day, visitor, sn${eventGoals.map((g) => `, ${g}`).join('')} from ev where kind = 'event' group by day, visitor, sn
    ),
    ses as (
      select pg.day, pg.visitor, pg.sn, ${flags} as goals
      from pg left join eg using (day, visitor, sn)
    ),
    ex as (
      select distinct day, visitor, sn, experiment, variant
      from ev
      where kind = 'exposure' and experiment = any(${keys})
    )
    select 'p' as part, seqs.steps, seqs.win, seqs.pre, ses.goals, null::text as experiment, null::text as variant,
           count(*)::int as sessions, null::int as converted
    from ses left join seqs using (day, visitor, sn)
    group by seqs.steps, seqs.win, seqs.pre, ses.goals
    union all
    select 'x', null, null, null, null, ex.experiment, ex.variant, count(*)::int, ${converted}
    from ex join ses using (day, visitor, sn)
    group by ex.experiment, ex.variant`;
  return statement(sql, p);
}
