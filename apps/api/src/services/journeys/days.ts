// Journeys over UTC days from the per-day store (day-store/): per day one entry per zoom, lane,
// goal definitions and experiment keys, holding the statement's groups for that day alone (session step
// sequences with goal flags and counts, exposures per variant). Groups are summed here over the days;
// k-anonymity is applied afterwards by the answer, on the summed groups only. Anchored questions read raw.
import { splitUtcDays } from '../day-store/days.ts';
import { type GatherOptions, gatherDays } from '../day-store/gather.ts';
import { run } from '../stats/runner.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { type JourneyQuestion, type JourneyRow, journeyStatement } from './statement.ts';

const SEP = '\u0001';
const listKey = (xs: readonly unknown[] | null) => (xs === null ? '\u0003' : `[${xs.join('\u0002')}`);

/**
 * One row per group: sessions (and converted) of equal groups added up. The answer does not depend on
 * the order of the groups, so none is imposed (sorting ~10^5 keys cost more than the sum).
 */
export function sumGroups(rows: readonly JourneyRow[]): JourneyRow[] {
  const by = new Map<string, JourneyRow>();
  for (const r of rows) {
    // Labels never hold \u0001 to \u0003 (control characters are stripped at the door).
    const key =
      r.part === 'x'
        ? `x${SEP}${r.experiment}${SEP}${r.variant}`
        : `p${SEP}${listKey(r.steps)}${SEP}${listKey(r.win)}${SEP}${r.pre}${SEP}${listKey(r.goals)}`;
    const had = by.get(key);
    if (!had) by.set(key, { ...r });
    else {
      had.sessions += r.sessions;
      if (r.converted !== null) had.converted = (had.converted ?? 0) + r.converted;
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
  const stored = await storedJourneyRows(ctx, q, days.stored, opts);
  const rest = await run(ctx.em, journeyStatement({ ...ctx, utcDays: days.raw }, q));
  return sumGroups([...stored, ...rest]);
}

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

/** The groups of the stored days, unsummed (the question's anchor is ignored: stored days have none). */
export async function storedJourneyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  opts: GatherOptions = {},
): Promise<JourneyRow[]> {
  // 'groups-v2': the stored form (entries of the first form, objects, are not read).
  const definition = [
    'groups-v2',
    q.zoom,
    q.who,
    q.goals.map((g) => [g.type, g.match, g.prefix]),
    q.convertedGoal,
    q.experimentKeys,
  ];
  const [stored] = await gatherDays<StoredGroup>(
    ctx,
    [{ kind: 'journeys', definition }],
    days,
    async (dayCtx, range) => [(await run(dayCtx.em, journeyStatement(dayCtx, { ...q, range, anchor: null }))).map(toStored)],
    opts,
  );
  return (stored ?? []).map(fromStored);
}
