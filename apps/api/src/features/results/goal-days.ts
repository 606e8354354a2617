// Goal results over UTC days from the per-day store (day-store/): per day one `visits` entry
// (the People session starts) and one entry per goal definition (its completions, sessions and
// completions per local day), each the raw goal statement's rows for that day alone.
import { type ComputeDay, type GatherOptions, gatherDays, type Part } from '../../analytics/day-store/gather.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import type { GoalMatcher } from './goal-match.ts';
import { type RawGoalRow, rawGoalStatement } from './goal-statements.ts';

const VISITS: Part = { kind: 'visits', definition: 'human session starts' };

/** A goal's stored rows depend on its matcher and, for the daily series, the site's time zone. */
const goalPart = (m: GoalMatcher, timezone: string): Part => ({ kind: 'goal', definition: [m.kind, m.value, timezone] });

const computeGoalDay: ComputeDay<RawGoalRow> = async (dayCtx, range, parts) => {
  const goals = parts.filter((p) => p.kind === 'goal');
  const matchers = goals.map((p) => {
    const [kind, value] = p.definition as [GoalMatcher['kind'], string];
    return { kind, value };
  });
  const rows = await run(dayCtx.em, rawGoalStatement(dayCtx, range, matchers));
  return parts.map((part) => {
    if (part.kind === 'visits') return rows.filter((r) => r.part === 'visits');
    const i = goals.indexOf(part);
    return rows.filter((r) => r.part !== 'visits' && r.i === i).map((r) => ({ ...r, i: 0 }));
  });
};

/** The rows of the stored days, as one raw statement over them would give (several rows per part). */
export async function storedGoalRows(
  ctx: SiteCtx,
  days: readonly string[],
  matchers: readonly GoalMatcher[],
  opts: GatherOptions = {},
): Promise<RawGoalRow[]> {
  const parts = [VISITS, ...matchers.map((m) => goalPart(m, ctx.timezone))];
  const rows = await gatherDays(ctx, parts, days, computeGoalDay, opts);
  const out: RawGoalRow[] = [...(rows[0] ?? [])];
  matchers.forEach((_, i) => {
    for (const r of rows[i + 1] ?? []) out.push({ ...r, i });
  });
  return out;
}
