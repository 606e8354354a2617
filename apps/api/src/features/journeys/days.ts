// Journeys over UTC days from the per-day store (day-store/): per day one entry per zoom, lane,
// goal definitions and experiment keys, holding the statement's groups for that day alone (session step
// sequences with goal flags and counts, exposures per variant). The days' groups are put side by side in
// columns (groups.ts), the older days of a long range read as one packed span; k-anonymity is applied
// afterwards by the answer, on the sums over all days only. Anchored questions read raw.
import { splitUtcDays } from '../../analytics/day-store/days.ts';
import { eachDay, type GatherOptions } from '../../analytics/day-store/gather.ts';
import { type SpanCodec, spanOf } from '../../analytics/day-store/span.ts';
import type { DayRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { GroupColumns } from './groups.ts';
import { type PackedHeader, packGroups, unpackGroups } from './packing.ts';
import { type JourneyQuestion, type JourneyRow, journeyStatement } from './statement.ts';

/**
 * A group as stored: a short array rather than an object with nine keys, since a large site stores ~10^4
 * groups a day and reading them back is mostly parsing. Stored days have no anchor (win, pre null);
 * goal flags are a string of 0 and 1.
 */
export type StoredGroup = ['p', string[] | null, string, number] | ['x', string, string, number, number | null];

const toStored = (r: JourneyRow): StoredGroup =>
  r.part === 'x'
    ? ['x', r.experiment as string, r.variant as string, r.sessions, r.converted]
    : ['p', r.steps, (r.goals ?? []).map((g) => (g ? '1' : '0')).join(''), r.sessions];

/** A stored group into columns (unsummed: see groups.ts). */
function addStored(cols: GroupColumns, g: StoredGroup): void {
  if (g[0] === 'x') cols.addExposure({ experiment: g[1], variant: g[2], sessions: g[3], converted: g[4] });
  else cols.add(g[1], g[2], g[3]);
}

/** The session groups of a question: stored days (and a span of the older ones) plus raw rest. */
export async function journeyGroups(
  ctx: SiteCtx,
  q: JourneyQuestion,
  opts: GatherOptions & { store?: boolean } = {},
): Promise<GroupColumns> {
  if (opts.store === false || q.anchor !== null) {
    const cols = new GroupColumns(q.anchor !== null);
    for (const r of await run(ctx.em, journeyStatement(ctx, q))) cols.addRow(r);
    return cols;
  }
  const days = splitUtcDays(q.range, ctx.timezone);
  const cols = await storedGroups(ctx, q, days.stored, opts);
  for (const r of await run(ctx.em, journeyStatement({ ...ctx, utcDays: days.raw }, q))) cols.addRow(r);
  return cols;
}

/** From this many older days on, they are read as one packed span (day-store/span.ts). */
const SPAN_MIN_DAYS = 7;
/** The newest stored days, which change most (today, yesterday), stay out of the span. */
const SPAN_FRESH_DAYS = 2;

const definitionOf = (q: JourneyQuestion) => [
  // The stored form and meaning: 'groups-v4' keeps the declared variants only; 'groups-v3' counted each session in
  // the variant of its first exposure, converted from it on ('groups-v2' counted every variant shown and the whole
  // session; the first form was objects).
  'groups-v4',
  q.zoom,
  q.who,
  q.goals.map((g) => [g.type, g.match, g.prefix]),
  q.convertedGoal,
  q.experimentKeys,
  q.declaredVariants,
];

const journeyPart = (q: JourneyQuestion) => ({ kind: 'journeys' as const, definition: definitionOf(q) });

/** One day of the question as the store keeps it (no anchor). */
const computeJourneyDay = (q: JourneyQuestion) => async (dayCtx: SiteCtx, range: DayRange) => [
  (await run(dayCtx.em, journeyStatement(dayCtx, { ...q, range, anchor: null }))).map(toStored),
];

/**
 * Each group of the stored days, read a batch of days at a time, computing and storing missing days
 * first (the question's anchor is ignored: stored days have none).
 */
export async function eachJourneyGroup(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  use: (group: StoredGroup) => void,
  opts: GatherOptions = {},
): Promise<void> {
  await eachDay<StoredGroup>(
    ctx,
    [journeyPart(q)],
    days,
    computeJourneyDay(q),
    (_, groups) => {
      for (const g of groups) use(g);
    },
    opts,
  );
}

/** The groups of the stored days added to `cols`. */
async function addStoredDays(cols: GroupColumns, ctx: SiteCtx, q: JourneyQuestion, days: readonly string[], opts: GatherOptions) {
  await eachJourneyGroup(ctx, q, days, (g) => addStored(cols, g), opts);
  return cols;
}

/** Computes and stores the days not stored or outdated, reading none back (the hourly job). */
export async function keepJourneyDays(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  opts: GatherOptions = {},
): Promise<void> {
  await eachDay<StoredGroup>(ctx, [journeyPart(q)], days, computeJourneyDay(q), null, opts);
}

const packedGroups: SpanCodec<GroupColumns, PackedHeader> = {
  pack: (cols) => packGroups(cols.summed()),
  unpack: unpackGroups,
};

/** The older days of a range's stored days (all but the newest SPAN_FRESH_DAYS), when they make a span. */
function spanDays(days: readonly string[]): { older: string[]; fresh: string[] } | null {
  const sorted = [...days].sort();
  if (sorted.length < SPAN_MIN_DAYS + SPAN_FRESH_DAYS) return null;
  return { older: sorted.slice(0, -SPAN_FRESH_DAYS), fresh: sorted.slice(-SPAN_FRESH_DAYS) };
}

const spanGroups = (ctx: SiteCtx, q: JourneyQuestion, older: readonly string[], opts: GatherOptions) =>
  spanOf(
    ctx,
    'journeys',
    definitionOf(q),
    older,
    (o) => addStoredDays(new GroupColumns(), ctx, q, older, { ...opts, ...o }),
    packedGroups,
  );

/** The stored days as columns; from SPAN_MIN_DAYS + SPAN_FRESH_DAYS days on, the older ones as one span. */
async function storedGroups(ctx: SiteCtx, q: JourneyQuestion, days: readonly string[], opts: GatherOptions) {
  const split = spanDays(days);
  if (!split) return addStoredDays(new GroupColumns(), ctx, q, days, opts);
  return addStoredDays(await spanGroups(ctx, q, split.older, opts), ctx, q, split.fresh, opts);
}

/**
 * Builds the span an ask over `q.range` reads, unless it is current (the job, so that the first ask of
 * a day does not wait for a month of groups to be summed).
 */
export async function warmJourneySpan(ctx: SiteCtx, q: JourneyQuestion, opts: GatherOptions = {}): Promise<void> {
  const split = spanDays(splitUtcDays(q.range, ctx.timezone).stored);
  if (split) await spanGroups(ctx, q, split.older, opts);
}
