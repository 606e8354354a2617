// Experiment results over UTC days from the per-day store (day-store/): per day one entry per
// experiment key and goal definition, the raw statement's variant rows for that day alone, summed here
// per variant (sessions never cross a UTC day, so the sums are those of one statement over all days).
// The stored rows' meaning is versioned in the part's definition (EXPERIMENT_ROWS): a day stored under
// another meaning has another spec, so it is never read, and is computed again when asked.
import { splitUtcDays } from '../../analytics/day-store/days.ts';
import { type GatherOptions, gatherDays } from '../../analytics/day-store/gather.ts';
import type { DayRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type ExperimentRef, experimentStatement, type VariantRow } from './experiment-statement.ts';
import type { GoalMatcher } from './goal-match.ts';
import type { ReadOptions } from './goal-results.ts';

/**
 * The meaning of the stored variant rows. 'first-exposure-v2': each session in the variant of its first
 * exposure, goal and events counted from that exposure on, and `mixed`. (The first form, with no tag, put a
 * session in every variant it was shown and counted its whole session; those entries are not read.)
 */
export const EXPERIMENT_ROWS = 'first-exposure-v2';

export function sumVariants(rows: readonly VariantRow[]): VariantRow[] {
  const by = new Map<string, VariantRow>();
  for (const r of rows) {
    const v = by.get(r.variant) ?? { variant: r.variant, sessions: 0, converted: 0, events: 0, mixed: 0 };
    v.sessions += r.sessions;
    v.converted += r.converted;
    v.events += r.events;
    v.mixed += r.mixed;
    by.set(r.variant, v);
  }
  return [...by.values()];
}

/** The variant rows of the stored days (several rows per variant). */
export async function storedExperimentRows(
  ctx: SiteCtx,
  days: readonly string[],
  experiment: ExperimentRef,
  goal: GoalMatcher | null,
  opts: GatherOptions = {},
): Promise<VariantRow[]> {
  // The declared variants are part of what is stored: all of them are kept, the others only the largest.
  const part = {
    kind: 'experiment' as const,
    definition: [EXPERIMENT_ROWS, experiment.key, goal?.kind ?? null, goal?.value ?? null, [...experiment.variants].sort()],
  };
  const [stored] = await gatherDays<VariantRow>(
    ctx,
    [part],
    days,
    async (dayCtx, dayRange) => [[...(await run(dayCtx.em, experimentStatement(dayCtx, dayRange, experiment, goal)))]],
    opts,
  );
  return stored ?? [];
}

export async function experimentRows(
  ctx: SiteCtx,
  range: DayRange,
  experiment: ExperimentRef,
  goal: GoalMatcher | null,
  opts: ReadOptions,
): Promise<VariantRow[]> {
  if (opts.store === false) return [...(await run(ctx.em, experimentStatement(ctx, range, experiment, goal)))];
  const days = splitUtcDays(range, ctx.timezone);
  const stored = await storedExperimentRows(ctx, days.stored, experiment, goal, opts);
  const rest = await run(ctx.em, experimentStatement({ ...ctx, utcDays: days.raw }, range, experiment, goal));
  return sumVariants([...stored, ...rest]);
}
