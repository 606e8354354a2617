// Journeys over UTC days from the per-day store (day-store/): per day one entry per zoom, lane,
// goal definitions and experiment keys, holding the statement's groups for that day alone (session step
// sequences with goal flags and counts, exposures per variant). The days' groups are put side by side in
// columns (groups.ts), the older days of a long range read as one packed span; k-anonymity is applied
// afterwards by the answer, on the sums over all days only. Anchored questions read raw.
import { splitUtcDays } from '../../analytics/day-store/days.ts';
import { type GatherOptions, gatherDays } from '../../analytics/day-store/gather.ts';
import { type SpanCodec, spanOf } from '../../analytics/day-store/span.ts';
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
type StoredGroup = ['p', string[] | null, string, number] | ['x', string, string, number, number | null];

const toStored = (r: JourneyRow): StoredGroup =>
  r.part === 'x'
    ? ['x', r.experiment as string, r.variant as string, r.sessions, r.converted]
    : ['p', r.steps, (r.goals ?? []).map((g) => (g ? '1' : '0')).join(''), r.sessions];

/** Stored groups into columns (unsummed: see groups.ts). */
function addStored(cols: GroupColumns, groups: readonly StoredGroup[]): GroupColumns {
  for (const g of groups) {
    if (g[0] === 'x') cols.addExposure({ experiment: g[1], variant: g[2], sessions: g[3], converted: g[4] });
    else cols.add(g[1], g[2], g[3]);
  }
  return cols;
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
  // 'groups-v2': the stored form (entries of the first form, objects, are not read).
  'groups-v2',
  q.zoom,
  q.who,
  q.goals.map((g) => [g.type, g.match, g.prefix]),
  q.convertedGoal,
  q.experimentKeys,
];

/**
 * The groups of the stored days, computing and storing missing ones (the question's anchor is ignored:
 * stored days have none). The hourly job calls this to keep days stored.
 */
export async function storedJourneyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  opts: GatherOptions = {},
): Promise<StoredGroup[]> {
  const [stored] = await gatherDays<StoredGroup>(
    ctx,
    [{ kind: 'journeys', definition: definitionOf(q) }],
    days,
    async (dayCtx, range) => [(await run(dayCtx.em, journeyStatement(dayCtx, { ...q, range, anchor: null }))).map(toStored)],
    opts,
  );
  return stored ?? [];
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
    async (o) => addStored(new GroupColumns(), await storedJourneyRows(ctx, q, older, { ...opts, ...o })),
    packedGroups,
  );

/** The stored days as columns; from SPAN_MIN_DAYS + SPAN_FRESH_DAYS days on, the older ones as one span. */
async function storedGroups(ctx: SiteCtx, q: JourneyQuestion, days: readonly string[], opts: GatherOptions) {
  const split = spanDays(days);
  if (!split) return addStored(new GroupColumns(), await storedJourneyRows(ctx, q, days, opts));
  const cols = await spanGroups(ctx, q, split.older, opts);
  return addStored(cols, await storedJourneyRows(ctx, q, split.fresh, opts));
}

/**
 * Builds the span an ask over `q.range` reads, unless it is current (the job, so that the first ask of
 * a day does not wait for a month of groups to be summed).
 */
export async function warmJourneySpan(ctx: SiteCtx, q: JourneyQuestion, opts: GatherOptions = {}): Promise<void> {
  const split = spanDays(splitUtcDays(q.range, ctx.timezone).stored);
  if (split) await spanGroups(ctx, q, split.older, opts);
}
