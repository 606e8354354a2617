// Funnel results over UTC days from the per-day store (day-store/): per day one entry per funnel definition
// (its steps and the filters asked), the statement's rows for that day alone. Sessions and visitor-days
// never cross a UTC day, so the days' step counts add up, and their time histograms merge (funnel-time.ts).

import type { FunnelStep } from '@us/shared';
import { splitUtcDays } from '../../analytics/day-store/days.ts';
import { type GatherOptions, gatherDays, type Part } from '../../analytics/day-store/gather.ts';
import type { DayRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type GoalMatcher, matcherOf } from '../results/index.ts';
import { type FunnelStepRow, funnelStatement } from './funnel-statement.ts';

/** A step as the statement matches it (a page step matches paths as a path goal does). */
export const stepMatcher = (s: FunnelStep): GoalMatcher =>
  matcherOf({ type: s.type === 'page' ? 'path' : 'event', match: s.match });

/** The stored figures depend on the steps and the filters (not the time zone: a UTC day is whole). */
const funnelPart = (steps: readonly GoalMatcher[], where: Record<string, string>): Part => ({
  kind: 'funnel',
  definition: [steps.map((m) => [m.kind, m.value]), Object.entries(where).sort()],
});

/** The rows of the stored days (several rows per step). */
export async function storedFunnelRows(
  ctx: SiteCtx,
  days: readonly string[],
  steps: GoalMatcher[],
  where: Record<string, string>,
  opts: GatherOptions = {},
): Promise<FunnelStepRow[]> {
  const [stored] = await gatherDays<FunnelStepRow>(
    ctx,
    [funnelPart(steps, where)],
    days,
    async (dayCtx, dayRange) => [[...(await run(dayCtx.em, funnelStatement(dayCtx, dayRange, steps, where)))]],
    opts,
  );
  return stored ?? [];
}

/** The funnel's rows over a local range: the UTC days wholly inside it from the store, the rest raw. */
export async function funnelRows(
  ctx: SiteCtx,
  range: DayRange,
  steps: GoalMatcher[],
  where: Record<string, string>,
  opts: GatherOptions & { store?: boolean } = {},
): Promise<FunnelStepRow[]> {
  if (opts.store === false) return [...(await run(ctx.em, funnelStatement(ctx, range, steps, where)))];
  const days = splitUtcDays(range, ctx.timezone);
  const stored = await storedFunnelRows(ctx, days.stored, steps, where, opts);
  const rest = await run(ctx.em, funnelStatement({ ...ctx, utcDays: days.raw }, range, steps, where));
  return [...stored, ...rest];
}

/** The steps of every funnel saved on the site (what the result days job keeps stored). */
export async function savedFunnelSteps(ctx: SiteCtx): Promise<GoalMatcher[][]> {
  const rows = await ctx.em
    .getConnection()
    .execute<{ steps: FunnelStep[] }[]>(
      'select steps from funnels where site_id = ?::uuid order by created_at, id',
      [ctx.siteId],
      'all',
    );
  return rows.map((r) => r.steps.map(stepMatcher));
}
