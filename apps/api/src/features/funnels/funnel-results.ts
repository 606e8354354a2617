// GET /v1/sites/{id}/funnels/{funnel}/results: per step the visitors and sessions that reached it in order
// within one session, the conversion from the first step, the drop-off from the step before and the median
// time between them. A step reached by fewer than FUNNEL_LIMITS.minVisitors visitors is listed without
// figures (as experiments' small groups), and so are the steps after it. The dashboard's filters apply to
// where each session began (its first pageview), as its visit counts do. Whole UTC days come from the
// per-day store (funnel-days.ts), so a 30-day ask reads stored days instead of a month of rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { FUNNEL_LIMITS, type Funnel, type FunnelResults, type FunnelResultsQuery, type FunnelStepResult } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import type { GatherOptions } from '../../analytics/day-store/gather.ts';
import { resolveRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { withSegment } from '../segments/index.ts';
import { checkWhere, whereFromParams } from '../stats/index.ts';
import { funnelRows, stepMatcher } from './funnel-days.ts';
import type { FunnelStepRow } from './funnel-statement.ts';
import { addToHistogram, medianOf, type TimeHistogram } from './funnel-time.ts';
import { loadFunnel } from './funnels.ts';

/** Percent with two decimals. */
const percent = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 100;

interface StepTotal {
  visitors: number;
  sessions: number;
  time: TimeHistogram;
}

/** Per step the sums of its rows (several per step: one per stored day, one from the raw days). */
function totals(steps: number, rows: readonly FunnelStepRow[]): StepTotal[] {
  const out = Array.from({ length: steps }, () => ({ visitors: 0, sessions: 0, time: new Map() as TimeHistogram }));
  for (const r of rows) {
    const t = out[r.i];
    if (!t) continue;
    if (r.part === 'step') {
      t.visitors += r.visitors;
      t.sessions += r.sessions;
    } else addToHistogram(t.time, r.seconds, r.n);
  }
  return out;
}

/** The answer's steps from the statement's rows (a step missing from them was reached by no one). */
export function stepResults(funnel: Funnel, rows: readonly FunnelStepRow[]): FunnelStepResult[] {
  const byStep = totals(funnel.steps.length, rows);
  const entered = byStep[0]?.visitors ?? 0;
  let shown = true;
  return funnel.steps.map((step, i) => {
    const t = byStep[i] as StepTotal;
    const previous = i === 0 ? null : (byStep[i - 1]?.visitors ?? 0);
    shown = shown && t.visitors >= FUNNEL_LIMITS.minVisitors;
    const base = { step: i + 1, type: step.type, match: step.match };
    if (!shown) return { ...base, visitors: null, sessions: null, conversion: null, dropOff: null, medianSeconds: null };
    const median = i === 0 ? null : medianOf(t.time);
    return {
      ...base,
      visitors: t.visitors,
      sessions: t.sessions,
      conversion: percent(t.visitors, entered),
      dropOff: previous === null ? null : percent(previous - t.visitors, previous),
      medianSeconds: median === null ? null : Math.round(median),
    };
  });
}

const KNOWN = new Set(['id', 'funnel', 'days', 'segment']);

/** `where`: filters of the pageviews set, applied to where each session began. */
export async function funnelResultsOf(
  ctx: SiteCtx,
  funnel: Funnel,
  days: number | undefined,
  where: Record<string, string> = {},
  opts: GatherOptions & { store?: boolean } = {},
): Promise<FunnelResults> {
  const range = resolveRange({ days }, ctx.today);
  const matchers = funnel.steps.map(stepMatcher);
  const rows = await funnelRows(ctx, range, matchers, where, opts);
  return { funnel, from: range.from, to: range.to, steps: stepResults(funnel, rows) };
}

export function siteFunnelResults(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: FunnelResultsQuery,
): Promise<FunnelResults> {
  // Refused before the site is read: an unknown parameter or filter names itself as the field.
  checkWhere('pageviews', whereFromParams(input, KNOWN));
  return withSite(deps, em, actor, input.id, async (ctx, site) => {
    const where = checkWhere('pageviews', whereFromParams(await withSegment(ctx.em, site.id, input), KNOWN));
    return funnelResultsOf(ctx, await loadFunnel(em, site.id, input.funnel), input.days, where);
  });
}
