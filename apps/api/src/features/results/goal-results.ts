// GET /v1/sites/{id}/goals/results: per goal its completions, the People sessions reaching it and the
// rate out of all People visits, with a daily series. Goals read stored rows, so a goal counts sessions
// from before it was made. Days older than the raw window come from daily rollups: completions only.
import type { Experiment, Goal, GoalResult, GoalResults, GoalResultsQuery } from '@us/shared';
import { splitUtcDays } from '../../analytics/day-store/days.ts';
import type { GatherOptions } from '../../analytics/day-store/gather.ts';
import { type DayRange, daysOf, resolveRange, splitRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { allEnded } from '../../core/map-limited.ts';
import { storedGoalRows } from './goal-days.ts';
import { type GoalMatcher, matcherOf } from './goal-match.ts';
import { type RawGoalRow, rawGoalStatement, rollupGoalStatement } from './goal-statements.ts';
import { asPercent } from './two-proportions.ts';

export interface SiteLists {
  goals: Goal[];
  experiments: Experiment[];
}

interface PerGoal {
  completions: number;
  sessions: number;
  byDay: Map<string, number>;
}

/** What the rollups could not answer, in words; null when every day was raw. */
export function coverageNote(range: DayRange, rawStart: string, goals: Goal[], experiments: Experiment[]): string | null {
  const split = splitRange(range, rawStart);
  if (!split.rollup) return null;
  const lastRolled = split.rollup.to;
  const head = split.raw
    ? `Days ${range.from} to ${lastRolled} are older than 90 days and answered from daily rollups, which keep counts but not sessions: completions cover every day, while visits, sessions and rates cover ${rawStart} to ${range.to} only.`
    : `These days are older than 90 days and answered from daily rollups, which keep counts but not sessions: completions are given; visits, sessions and rates are not (null).`;
  const keys = new Set(experiments.map((e) => e.key));
  const clash = goals.filter((g) => g.type === 'event' && keys.has(g.match)).map((g) => g.id);
  const exposures = clash.length
    ? ` In the rollups, completions of ${clash.join(', ')} also count A/B exposures of the experiment with that key (rollups keep events by name only).`
    : '';
  return head + exposures;
}

/** How to read raw days: `store` (default) answers UTC days inside the range from the per-day store. */
export interface ReadOptions extends GatherOptions {
  store?: boolean;
}

/** The raw statement's rows over the raw days: days inside the range from the store, the rest raw. */
async function rawDayRows(
  ctx: SiteCtx,
  range: DayRange,
  matchers: GoalMatcher[],
  opts: ReadOptions,
): Promise<readonly RawGoalRow[]> {
  if (opts.store === false) return run(ctx.em, rawGoalStatement(ctx, range, matchers));
  const days = splitUtcDays(range, ctx.timezone);
  const stored = await storedGoalRows(ctx, days.stored, matchers, opts);
  const rest = await run(ctx.em, rawGoalStatement({ ...ctx, utcDays: days.raw }, range, matchers));
  return [...stored, ...rest];
}

/** The longest series given day by day; a longer range is given month by month. */
export const SERIES_DAYS = 366;

/**
 * Each day's completions, zeros filled; past SERIES_DAYS, one entry per month (its first day in the range), the
 * month's sum. A ten-year range of 100 goals made 366,000 entries: ~200 ms of the event loop and 14 MB per answer.
 */
function seriesOf(days: readonly string[], byDay: ReadonlyMap<string, number>): { day: string; completions: number }[] {
  if (days.length <= SERIES_DAYS) return days.map((day) => ({ day, completions: byDay.get(day) ?? 0 }));
  const months = new Map<string, { day: string; completions: number }>();
  for (const day of days) {
    const month = day.slice(0, 7);
    if (!months.has(month)) months.set(month, { day, completions: 0 });
  }
  for (const [day, n] of byDay) {
    const entry = months.get(day.slice(0, 7));
    if (entry) entry.completions += n;
  }
  return [...months.values()];
}

export async function goalResultsOf(
  ctx: SiteCtx,
  lists: SiteLists,
  input: GoalResultsQuery,
  opts: ReadOptions = {},
): Promise<GoalResults> {
  const range = resolveRange({ days: input.days }, ctx.today);
  const split = splitRange(range, ctx.rawStart);
  const matchers = lists.goals.map(matcherOf);
  const per: PerGoal[] = lists.goals.map(() => ({ completions: 0, sessions: 0, byDay: new Map() }));
  const add = (i: number | null, day: string | null, n: number) => {
    const g = i === null ? undefined : per[i];
    if (!g) return;
    g.completions += n;
    if (day) g.byDay.set(day, (g.byDay.get(day) ?? 0) + n);
  };
  let visits: number | null = null;
  const [raw, rolled, imported] = await allEnded([
    split.raw ? rawDayRows(ctx, split.raw, matchers, opts) : [],
    split.rollup && matchers.length ? run(ctx.em, rollupGoalStatement(ctx, split.rollup, matchers)) : [],
    // Imported history of raw-window days (a day with data of its own imports nothing): its completions count as
    // the stats count them, or a site that imported its last weeks saw none until they left the raw window.
    split.raw && matchers.length ? run(ctx.em, rollupGoalStatement(ctx, split.raw, matchers, 'imported')) : [],
  ]);
  for (const row of raw) {
    if (row.part === 'visits') visits = (visits ?? 0) + row.n;
    else if (row.part === 'day') add(row.i, row.day, row.n);
    else if (row.i !== null && per[row.i]) (per[row.i] as PerGoal).sessions += row.sessions ?? 0;
  }
  for (const row of [...rolled, ...imported]) add(row.i, row.day, row.n);
  const days = daysOf(range);
  const goals: GoalResult[] = lists.goals.map((goal, i) => {
    const g = per[i] as PerGoal;
    const sessions = visits === null ? null : g.sessions;
    return {
      id: goal.id,
      name: goal.name,
      type: goal.type,
      match: goal.match,
      completions: g.completions,
      sessions,
      visits,
      rate: visits && sessions !== null ? asPercent(sessions / visits) : null,
      series: seriesOf(days, g.byDay),
    };
  });
  return {
    from: range.from,
    to: range.to,
    visits,
    goals,
    coverage: {
      source: split.raw && split.rollup ? 'both' : split.rollup ? 'rollups' : 'raw',
      note: coverageNote(range, ctx.rawStart, lists.goals, lists.experiments),
    },
  };
}
