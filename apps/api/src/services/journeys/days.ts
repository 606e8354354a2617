// Journeys over UTC days from the per-day store (day-store/): per day one entry per zoom, lane,
// goal definitions and experiment keys, holding the statement's groups for that day alone (session step
// sequences with goal flags and counts, exposures per variant). Groups are summed here over the days;
// k-anonymity is applied afterwards by the answer, on the summed groups only. Anchored questions read raw.
import { splitUtcDays } from '../day-store/days.ts';
import { type GatherOptions, gatherDays } from '../day-store/gather.ts';
import { spanRows } from '../day-store/span.ts';
import { run } from '../stats/runner.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
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

const fromStored = (g: StoredGroup): JourneyRow =>
  g[0] === 'x'
    ? {
        part: 'x',
        steps: null,
        win: null,
        pre: null,
        goals: null,
        experiment: g[1],
        variant: g[2],
        sessions: g[3],
        converted: g[4],
      }
    : {
        part: 'p',
        steps: g[1],
        win: null,
        pre: null,
        goals: [...g[2]].map((c) => c === '1'),
        experiment: null,
        variant: null,
        sessions: g[3],
        converted: null,
      };

/**
 * One row per group: sessions (and converted) of equal groups added up, made into rows only once summed
 * (a month of a large site has ~10^5 groups a zoom, over ~10^4 a day). The answer does not depend on the
 * order of the groups, so none is imposed.
 */
export function sumGroups(groups: readonly StoredGroup[]): JourneyRow[] {
  return sumStored(groups).map(fromStored);
}

/** Equal groups added up, still in the stored form. */
function sumStored(groups: readonly StoredGroup[]): StoredGroup[] {
  const by = new Map<string, StoredGroup>();
  for (const g of groups) {
    // Labels never hold \u0001 or \u0002 (control characters are stripped at the door).
    const key =
      g[0] === 'x' ? `x\u0001${g[1]}\u0001${g[2]}` : `p${g[1] === null ? '' : `\u0001${g[1].join('\u0002')}`}\u0001${g[2]}`;
    const had = by.get(key);
    if (!had) by.set(key, [...g] as StoredGroup);
    else {
      had[3] += g[3];
      if (had[0] === 'x' && g[0] === 'x' && g[4] !== null) had[4] = (had[4] ?? 0) + g[4];
    }
  }
  return [...by.values()];
}

export async function journeyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  opts: GatherOptions & { store?: boolean } = {},
): Promise<JourneyRow[]> {
  if (opts.store === false || q.anchor !== null) return [...(await run(ctx.em, journeyStatement(ctx, q)))];
  const days = splitUtcDays(q.range, ctx.timezone);
  const stored = await storedJourneyRows(ctx, q, days.stored, { ...opts, span: true });
  const rest = await run(ctx.em, journeyStatement({ ...ctx, utcDays: days.raw }, q));
  return sumGroups([...stored, ...rest.map(toStored)]);
}

/** With `span`, at least this many older days are read as one summed span (day-store/span.ts). */
const SPAN_MIN_DAYS = 7;
/** The newest stored days, which change most (today, yesterday), stay out of the span. */
const SPAN_FRESH_DAYS = 2;

/**
 * The groups of the stored days, not all summed (the question's anchor is ignored: stored days have
 * none). With `span` (the asks, not the job), the older days come as one summed span.
 */
export async function storedJourneyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  opts: GatherOptions & { span?: boolean } = {},
): Promise<StoredGroup[]> {
  // 'groups-v2': the stored form (entries of the first form, objects, are not read).
  const definition = [
    'groups-v2',
    q.zoom,
    q.who,
    q.goals.map((g) => [g.type, g.match, g.prefix]),
    q.convertedGoal,
    q.experimentKeys,
  ];
  const gather = async (some: readonly string[], o: GatherOptions) => {
    const [stored] = await gatherDays<StoredGroup>(
      ctx,
      [{ kind: 'journeys', definition }],
      some,
      async (dayCtx, range) => [(await run(dayCtx.em, journeyStatement(dayCtx, { ...q, range, anchor: null }))).map(toStored)],
      o,
    );
    return stored ?? [];
  };
  const sorted = [...days].sort();
  if (!opts.span || sorted.length < SPAN_MIN_DAYS + SPAN_FRESH_DAYS) return gather(sorted, opts);
  const older = sorted.slice(0, -SPAN_FRESH_DAYS);
  const span = await spanRows(ctx, 'journeys', definition, older, (o) => gather(older, { ...opts, ...o }), sumStored);
  return [...span, ...(await gather(sorted.slice(-SPAN_FRESH_DAYS), opts))];
}
