// GET /v1/sites/{id}/changes ("What changed?"): for this period and an earlier one, the dimension values that
// explain most of the change in visits, pageviews or a goal's completions. Each dimension is asked of the stats
// engine once per period (its largest CHANGE_LIMITS.valuesPerDimension values), inside the workspace's stats slot.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CHANGE_LIMITS, type Changes, type ChangesQuery, type MetricSet } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { CATALOGUE } from '../../analytics/catalogue.ts';
import { addDays, type DayRange, dayAdvice, FIRST_DAY, isDay, resolveRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { badRequest } from '../../core/errors.ts';
import { mapLimited } from '../../core/map-limited.ts';
import { withSegment } from '../segments/index.ts';
import { readSettings } from '../sites/index.ts';
import { answer, checkWhere, normalise, whereFromParams } from '../stats/index.ts';
import { type ChangeUnit, changesOf, type DimensionFigures, explained, topDrivers } from './drivers.ts';

const KNOWN = new Set(['id', 'metric', 'goal', 'days', 'from', 'to', 'compareFrom', 'compareTo', 'segment']);
const TRAFFIC_DIMENSIONS = ['source', 'referrer', 'medium', 'campaign', 'page', 'country', 'device'];

/** What is counted: a metric set and its count, fixed filters, the dimensions that may explain it. */
interface Measure {
  set: MetricSet;
  count: string;
  where: Record<string, string>;
  dimensions: string[];
  unit: ChangeUnit;
  /** Pages are where visits began (the sessions set). */
  entry: boolean;
}

function measureOf(input: ChangesQuery, settings: Record<string, unknown> | null): Measure {
  const metric = input.metric ?? 'visits';
  if (metric === 'visits') {
    return {
      set: 'sessions',
      count: 'sessions',
      where: {},
      dimensions: TRAFFIC_DIMENSIONS,
      unit: { one: 'visit', many: 'visits' },
      entry: true,
    };
  }
  if (metric === 'pageviews') {
    return {
      set: 'pageviews',
      count: 'pageviews',
      where: {},
      dimensions: TRAFFIC_DIMENSIONS,
      unit: { one: 'pageview', many: 'pageviews' },
      entry: false,
    };
  }
  if (!input.goal) throw badRequest('goal', 'Give goal=<its id> with metric=goal (GET /v1/sites/{id}/goals lists them)');
  const goal = readSettings(settings).goals.find((g) => g.id === input.goal);
  if (!goal) throw badRequest('goal', 'No such goal on this site: check the id with GET /v1/sites/{id}/goals');
  const unit = { one: `${goal.name} completion`, many: `${goal.name} completions` };
  if (goal.type === 'event') {
    return {
      set: 'events',
      count: 'events',
      where: { event: goal.match },
      dimensions: ['page', 'country', 'device'],
      unit,
      entry: false,
    };
  }
  if (goal.match.endsWith('*')) {
    throw badRequest(
      'goal',
      'A goal matching many pages (ending in *) cannot be broken down yet: choose an event goal or one page',
    );
  }
  const dimensions = TRAFFIC_DIMENSIONS.filter((d) => d !== 'page');
  return { set: 'pageviews', count: 'pageviews', where: { page: goal.match }, dimensions, unit, entry: false };
}

const length = (r: DayRange) => (Date.parse(r.to) - Date.parse(r.from)) / 86_400_000 + 1;

function periodsOf(ctx: SiteCtx, input: ChangesQuery): { current: DayRange; previous: DayRange } {
  const current = resolveRange({ days: input.days, from: input.from, to: input.to }, ctx.today);
  // `days` is bounded by its schema; a from/to pair only here (a ten-year period made each question ten years').
  if (length(current) > CHANGE_LIMITS.maxDays) {
    throw badRequest(input.from ? 'from' : 'to', `Give a period of at most ${CHANGE_LIMITS.maxDays} days from from to to`);
  }
  if (input.compareTo && !input.compareFrom) throw badRequest('compareFrom', 'Give compareFrom with compareTo');
  for (const field of ['compareFrom', 'compareTo'] as const) {
    const day = input[field];
    if (day !== undefined && !isDay(day)) throw badRequest(field, dayAdvice(field));
  }
  if (!input.compareFrom) {
    const previous = { from: addDays(current.from, -length(current)), to: addDays(current.from, -1) };
    // The period before starts before the calendar's first day: named as the field that set it.
    if (!isDay(previous.from)) {
      throw badRequest(
        input.from ? 'from' : 'days',
        `The period before this one starts before ${FIRST_DAY}: give a later period, or compareFrom to compare with`,
      );
    }
    return { current, previous };
  }
  const previous = { from: input.compareFrom, to: input.compareTo ?? addDays(input.compareFrom, length(current) - 1) };
  // A compareTo worked out from compareFrom past the calendar's last day: named as compareFrom, which set it.
  if (!isDay(previous.to)) throw badRequest(input.compareTo ? 'compareTo' : 'compareFrom', dayAdvice('compareFrom'));
  if (previous.to < previous.from) throw badRequest('compareTo', 'Give a compareTo on or after compareFrom');
  if (length(previous) > CHANGE_LIMITS.maxDays) throw badRequest('compareTo', `Compare at most ${CHANGE_LIMITS.maxDays} days`);
  return { current, previous };
}

/** The questions of one answer run this many at a time, so they do not take every query slot of the workspace. */
const CONCURRENCY = 4;

interface Figures {
  values: Map<string | null, number>;
  total: number;
  truncated: boolean;
}

/** One period's figures of `by` (null: the total only) as value → count, and the total. */
async function figures(
  ctx: SiteCtx,
  m: Measure,
  where: Record<string, string>,
  range: DayRange,
  by: string | null,
): Promise<Figures> {
  const spec = normalise(
    {
      metrics: m.set,
      ...(by ? { by } : {}),
      from: range.from,
      to: range.to,
      where,
      sort: m.count,
      limit: CHANGE_LIMITS.valuesPerDimension,
    },
    ctx.today,
  );
  // Filtered, the breakdowns read pairs of dimensions, which imported history does not keep: the total leaves it out
  // too, or the drivers did not add up to the change (an imported 500 before against drivers of 0).
  const result = await answer(ctx, spec, { withoutImported: Object.keys(where).length > 0 });
  const values = new Map<string | null, number>(result.rows.map((r) => [r.value, r.counts[m.count] ?? 0]));
  return { values, total: result.totals[m.count] ?? 0, truncated: result.truncated };
}

export async function changesOfSite(
  ctx: SiteCtx,
  settings: Record<string, unknown> | null,
  input: ChangesQuery,
): Promise<Changes> {
  const m = measureOf(input, settings);
  const where = { ...checkWhere(m.set, whereFromParams(input, KNOWN)), ...m.where };
  const { current, previous } = periodsOf(ctx, input);
  // Every question (the totals, then each dimension, for both periods) a few at a time, as a stats batch runs.
  const questions = [null, ...m.dimensions].flatMap((by) => [
    { range: current, by },
    { range: previous, by },
  ]);
  const answers = await mapLimited(questions, CONCURRENCY, (qn) => figures(ctx, m, where, qn.range, qn.by));
  const [now, before] = answers as [Figures, Figures];
  const total = now.total - before.total;
  let cut = false;
  const dims: DimensionFigures[] = m.dimensions.map((dimension, i) => {
    const a = answers[2 + 2 * i] as Figures;
    const b = answers[3 + 2 * i] as Figures;
    cut ||= a.truncated || b.truncated;
    return {
      dimension,
      label: CATALOGUE[m.set].dimensions[dimension]?.label ?? dimension,
      current: a.values,
      previous: b.values,
    };
  });
  const all = changesOf(dims, { current: now.total, previous: before.total }, m.unit, m.entry);
  return {
    metric: input.metric ?? 'visits',
    goal: input.goal ?? null,
    from: current.from,
    to: current.to,
    previousFrom: previous.from,
    previousTo: previous.to,
    current: now.total,
    previous: before.total,
    change: total,
    changePercent: before.total === 0 ? null : Math.round((total / before.total) * 1000) / 10,
    drivers: topDrivers(all, m.dimensions),
    dimensions: explained(all, dims, total),
    note: cut
      ? `Some dimensions have more than ${CHANGE_LIMITS.valuesPerDimension} values: beyond the largest ${CHANGE_LIMITS.valuesPerDimension} of a period, a value counts 0 there.`
      : null,
  };
}

export function siteChanges(deps: StatsDeps, em: EntityManager, actor: Actor, input: ChangesQuery): Promise<Changes> {
  return withSite(deps, em, actor, input.id, async (ctx, site) => {
    const settings = site.settings as Record<string, unknown> | null;
    return changesOfSite(ctx, settings, await withSegment(ctx.em, site.id, input, measureOf(input, settings).set));
  });
}
