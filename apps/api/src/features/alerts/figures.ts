// What an alert rule compares, asked of the stats engine the dashboard uses (the stats wing's `answer`):
// the People visitors of a period (or, for goal_drop, the visitors who completed the goal), and the
// average of the same hour or weekday over the previous weeks with data; for first_pageview, the site's pageviews
// since the instant the rule was made.
import type { AlertKind, AlertWindow, MetricSet } from '@us/shared';
import { CATALOGUE } from '../../analytics/catalogue.ts';
import { run } from '../../analytics/runner.ts';
import { type SiteCtx, siteCtx } from '../../analytics/site-ctx.ts';
import { inWorkspaceSlot, type StatsDeps } from '../../analytics/site-slot.ts';
import { laneCond, Params, statement } from '../../analytics/sql.ts';
import { type GoalMatcher, matcherOf } from '../results/index.ts';
import { readSettings } from '../sites/index.ts';
import { answer, firstDataDay, normalise } from '../stats/index.ts';
import type { AlertPeriod } from './periods.ts';
import { prefixVisitors } from './prefix-visitors.ts';

export interface AlertSite {
  id: string;
  name: string;
  timezone: string;
  workspaceId: string;
  settings: Record<string, unknown>;
}

export interface AlertFigures {
  current: number;
  /** The usual figure; null for first_pageview, and while the site has data for too few baseline periods. */
  baseline: number | null;
}

/** What is counted: visitors of a metric set under fixed filters. */
export interface Counted {
  set: MetricSet;
  where: Record<string, string>;
  /** A prefix goal (`/blog/*`): counted from raw rows, as `where` matches a page exactly. */
  prefix?: GoalMatcher;
}

/** Baseline periods with data needed before a rule compares: one week alone is too thin to call usual. */
export const MIN_BASELINE_PERIODS = 2;

/**
 * What a rule of `kind` counts: People visitors, or those who completed its goal (an event goal's event,
 * a page goal's page, or pages under a prefix goal's). Null when the goal is not one of the site's (any more).
 */
export function countedOf(kind: AlertKind, goalName: string | null, settings: Record<string, unknown>): Counted | null {
  if (kind !== 'goal_drop') return { set: 'pageviews', where: {} };
  const goal = readSettings(settings).goals.find((g) => g.name.toLowerCase() === (goalName ?? '').toLowerCase());
  if (!goal) return null;
  if (goal.type === 'event') return { set: 'events', where: { event: goal.match } };
  const matcher = matcherOf(goal);
  return matcher.kind === 'prefix'
    ? { set: 'pageviews', where: {}, prefix: matcher }
    : { set: 'pageviews', where: { page: matcher.value } };
}

/** Visitors per period key: the stats series the dashboard shows, or a prefix goal's raw count. */
async function visitorsByKey(ctx: SiteCtx, counted: Counted, window: AlertWindow, period: AlertPeriod) {
  const keys = [period.key, ...period.baselineKeys];
  if (counted.prefix) return prefixVisitors(ctx, counted.prefix, window, keys);
  const first = period.baselineKeys.at(-1)?.slice(0, 10) ?? period.day;
  const result = await answer(
    ctx,
    normalise({ metrics: counted.set, by: window, lane: 'human', from: first, to: period.day, where: counted.where }, ctx.today),
  );
  return new Map(result.rows.map((r) => [r.value, r.counts.visitors ?? 0]));
}

/**
 * The period's visitors and the average of its baseline periods. Periods before the site's first day with
 * data (a new site, or days its retention deleted) are left out, not counted as 0: they made every ordinary
 * day a spike. With fewer than MIN_BASELINE_PERIODS left there is no usual figure yet.
 */
export async function periodFigures(
  deps: StatsDeps,
  site: AlertSite,
  counted: Counted,
  window: AlertWindow,
  period: AlertPeriod,
): Promise<AlertFigures> {
  return inWorkspaceSlot(deps, site.workspaceId, async () => {
    const ctx = siteCtx(deps.statsOrm.em.fork(), { id: site.id, timezone: site.timezone, settings: site.settings });
    const since = await firstDataDay(ctx, CATALOGUE[counted.set].table);
    const kept = since === null ? [] : period.baselineKeys.filter((k) => k.slice(0, 10) >= since);
    const visitors = await visitorsByKey(ctx, counted, window, period);
    const baseline =
      kept.length < MIN_BASELINE_PERIODS ? null : kept.reduce((sum, k) => sum + (visitors.get(k) ?? 0), 0) / kept.length;
    return { current: visitors.get(period.key) ?? 0, baseline };
  });
}

/**
 * The site's People pageviews recorded at or after `since` (the instant the rule was made): a pageview of the same
 * day from before the rule is not the first one it waits for. Raw rows only: a rule waits on days retention keeps.
 */
export async function pageviewsSince(deps: StatsDeps, site: AlertSite, since: Date): Promise<number> {
  return inWorkspaceSlot(deps, site.workspaceId, async () => {
    const ctx = siteCtx(deps.statsOrm.em.fork(), { id: site.id, timezone: site.timezone, settings: site.settings });
    const p = new Params();
    const [row] = await run(
      ctx.em,
      statement<{ pageviews: number }>(
        `select count(*)::int as pageviews from pageviews
          where site_id = ${p.add(site.id, 'uuid')} and day >= ${p.add(since.toISOString().slice(0, 10), 'date')}
            and at >= ${p.add(since.toISOString(), 'timestamptz')} and ${laneCond(p, 'pageviews', ctx.windows, 'human')}`,
        p,
      ),
    );
    return row?.pageviews ?? 0;
  });
}
