// GET /v1/sites/{id}/funnels/{funnel}/results: per step the visitors and sessions that reached it in order
// within one session, the conversion from the first step, the drop-off from the step before and the median
// time between them. A step reached by fewer than FUNNEL_LIMITS.minVisitors visitors is listed without
// figures (as experiments' small groups), and so are the steps after it. The dashboard's filters apply to
// where each session began (its first pageview), as its visit counts do.
import type { EntityManager } from '@mikro-orm/postgresql';
import { FUNNEL_LIMITS, type Funnel, type FunnelResults, type FunnelResultsQuery, type FunnelStepResult } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { resolveRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { matcherOf } from '../results/index.ts';
import { checkWhere, whereFromParams } from '../stats/index.ts';
import { type FunnelStepRow, funnelStatement } from './funnel-statement.ts';
import { loadFunnel } from './funnels.ts';

/** Percent with two decimals. */
const percent = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 100;

/** The answer's steps from the statement's rows (a step missing from them was reached by no one). */
export function stepResults(funnel: Funnel, rows: readonly FunnelStepRow[]): FunnelStepResult[] {
  const byStep = new Map(rows.map((r) => [r.i, r]));
  const entered = byStep.get(0)?.visitors ?? 0;
  let shown = true;
  return funnel.steps.map((step, i) => {
    const row = byStep.get(i);
    const visitors = row?.visitors ?? 0;
    const previous = i === 0 ? null : (byStep.get(i - 1)?.visitors ?? 0);
    shown = shown && visitors >= FUNNEL_LIMITS.minVisitors;
    const base = { step: i + 1, type: step.type, match: step.match };
    if (!shown) return { ...base, visitors: null, sessions: null, conversion: null, dropOff: null, medianSeconds: null };
    return {
      ...base,
      visitors,
      sessions: row?.sessions ?? 0,
      conversion: percent(visitors, entered),
      dropOff: previous === null ? null : percent(previous - visitors, previous),
      medianSeconds: i === 0 || row?.median_seconds == null ? null : Math.round(row.median_seconds),
    };
  });
}

const KNOWN = new Set(['id', 'funnel', 'days']);

/** `where`: filters of the pageviews set, applied to where each session began. */
export async function funnelResultsOf(
  ctx: SiteCtx,
  funnel: Funnel,
  days: number | undefined,
  where: Record<string, string> = {},
): Promise<FunnelResults> {
  const range = resolveRange({ days }, ctx.today);
  const matchers = funnel.steps.map((s) => matcherOf({ type: s.type === 'page' ? 'path' : 'event', match: s.match }));
  const rows = await run(ctx.em, funnelStatement(ctx, range, matchers, where));
  return { funnel, from: range.from, to: range.to, steps: stepResults(funnel, rows) };
}

export function siteFunnelResults(
  deps: StatsDeps,
  em: EntityManager,
  actor: Actor,
  input: FunnelResultsQuery,
): Promise<FunnelResults> {
  // Refused before the site is read: an unknown parameter or filter names itself as the field.
  const where = checkWhere('pageviews', whereFromParams(input, KNOWN));
  return withSite(deps, em, actor, input.id, async (ctx, site) =>
    funnelResultsOf(ctx, await loadFunnel(em, site.id, input.funnel), input.days, where),
  );
}
