// Journeys over settled UTC days from the per-day store (day-store/): per day one entry per zoom, lane,
// goal definitions and experiment keys, holding the statement's groups for that day alone (session step
// sequences with goal flags and counts, exposures per variant). Groups are summed here over the days;
// k-anonymity is applied afterwards by the answer, on the summed groups only. Anchored questions read raw.
import { splitUtcDays } from '../day-store/days.ts';
import { type GatherOptions, gatherDays } from '../day-store/gather.ts';
import { run } from '../stats/runner.ts';
import type { SiteCtx } from '../stats/site-ctx.ts';
import { type JourneyQuestion, type JourneyRow, journeyStatement } from './statement.ts';

/** One row per group: sessions (and converted) of equal groups added up, in a stable order. */
export function sumGroups(rows: readonly JourneyRow[]): JourneyRow[] {
  const by = new Map<string, JourneyRow>();
  for (const r of rows) {
    const key = JSON.stringify([r.part, r.steps, r.win, r.pre, r.goals, r.experiment, r.variant]);
    const had = by.get(key);
    if (!had) by.set(key, { ...r });
    else {
      had.sessions += r.sessions;
      if (r.converted !== null) had.converted = (had.converted ?? 0) + r.converted;
    }
  }
  return [...by.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
}

export async function journeyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  opts: { store?: boolean; now?: Date; budgetMs?: number } = {},
): Promise<JourneyRow[]> {
  if (opts.store === false || q.anchor !== null) return [...(await run(ctx.em, journeyStatement(ctx, q)))];
  const days = splitUtcDays(q.range, ctx.timezone, opts.now ?? new Date());
  const stored = await storedJourneyRows(ctx, q, days.stored, opts);
  const rest = await run(ctx.em, journeyStatement({ ...ctx, utcDays: days.raw }, q));
  return sumGroups([...stored, ...rest]);
}

/** The groups of the stored days, unsummed (the question's anchor is ignored: stored days have none). */
export async function storedJourneyRows(
  ctx: SiteCtx,
  q: JourneyQuestion,
  days: readonly string[],
  opts: GatherOptions = {},
): Promise<JourneyRow[]> {
  const definition = [q.zoom, q.who, q.goals.map((g) => [g.type, g.match, g.prefix]), q.convertedGoal, q.experimentKeys];
  const [stored] = await gatherDays<JourneyRow>(
    ctx,
    [{ kind: 'journeys', definition }],
    days,
    async (dayCtx, range) => [[...(await run(dayCtx.em, journeyStatement(dayCtx, { ...q, range, anchor: null })))]],
    opts,
  );
  return stored ?? [];
}
