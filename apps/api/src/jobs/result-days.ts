// The per-day store's job (analytics/day-store/): after each rollup run, for every site with pageviews or
// events stored for the last 31 days (`day_arrivals`), stores each UTC day of the last 30 local days (up to
// yesterday) for the site's current goals (and visits), each experiment with its default goal, each saved
// funnel (without filters), and journeys at every zoom (human lane, no anchor) with the span of older days a
// 30-day journeys ask reads. Days already stored and current are read, not recomputed. Late data: stored
// days whose arrivals version (day_arrivals) moved since they were computed are deleted first (counted as
// `stale`) and computed again at once, so late rows never wait for an ask to be counted. A run takes the sites in
// an order of the hour's own, gives each at most 2 minutes and starts none after 10, so one site's recount (its
// goals or experiments changed: 30 days of each) holds neither the others nor the next rollup run for hours.
import type { Orm } from '@us/db';
import { splitUtcDays } from '../analytics/day-store/days.ts';
import { addDays, resolveRange } from '../analytics/range.ts';
import { siteCtx } from '../analytics/site-ctx.ts';
import { AppError } from '../core/errors.ts';
import { withJobLock } from '../core/job-lock.ts';
import type { Logger } from '../core/logger.ts';
import { savedFunnelSteps, storedFunnelRows } from '../features/funnels/index.ts';
import { keepJourneyDays, warmJourneySpan } from '../features/journeys/days.ts';
import { firstEventGoal, goalDefs } from '../features/journeys/goals.ts';
import { abOf } from '../features/journeys/statement.ts';
import { storedExperimentRows } from '../features/results/experiment-days.ts';
import { storedGoalRows } from '../features/results/goal-days.ts';
import { matcherOf } from '../features/results/goal-match.ts';
import { readSettings } from '../features/sites/settings-values.ts';

/** The journeys range whose span the job keeps built: the dashboard's 30 days. */
const SPAN_WARM_DAYS = 30;

export interface ResultDaysOptions {
  now?: Date;
  siteIds?: string[];
  /** Local days back from yesterday to keep stored. Default 30. */
  days?: number;
  /** A run starts no new site after this long (ms). Default 10 minutes. */
  runMs?: number;
  /** One site's share of a run (ms): past it, its days left wait for the next run. Default 2 minutes. */
  siteMs?: number;
  wait?: boolean;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface ResultDaysRun {
  ran: boolean;
  sites: number;
  /** Stored days deleted because rows arrived for them since (late data). */
  stale: number;
  failed: number;
  /** Sites whose days were not all stored within their share of the run, or not reached: the next run goes on. */
  unfinished: number;
}

const RUN_MS = 10 * 60_000;
const SITE_MS = 2 * 60_000;

export async function runResultDays(orm: Orm, opts: ResultDaysOptions = {}): Promise<ResultDaysRun> {
  const res = await withJobLock(orm, 'resultDays', () => fill(orm, opts), { wait: opts.wait });
  return res.ran ? res.result : { ran: false, sites: 0, stale: 0, failed: 0, unfinished: 0 };
}

/**
 * Deletes stored days of the site that got rows since they were computed (spans check their own days), among
 * the `days` this run stores again. Others are left to the asks: today's, still receiving rows, is always behind,
 * and deleting it every run made each ask of a busy site count today again while it waited (a large live day is
 * served as stored while it is counted again in the background: analytics/day-store/gather.ts).
 */
async function dropStale(orm: Orm, siteId: string, days: readonly string[]): Promise<number> {
  if (days.length === 0) return 0;
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>(
      `with gone as (
       delete from result_days r using day_arrivals a
        where r.site_id = ?::uuid and a.site_id = r.site_id and a.day = r.day and r.seen <> a.rows
          and r.kind not like '%-span' and r.day = any(?::date[])
        returning 1
     )
     select count(*) as n from gone`,
      [siteId, `{${days.join(',')}}`],
      'all',
    );
  return Number(rows[0]?.n ?? 0);
}

interface RecentSite {
  id: string;
  timezone: string;
  settings: Record<string, unknown> | null;
}

/**
 * The sites with pageviews or events stored for the 31 days before `now`. They are read from the arrivals as a
 * set of their own, not per site: Citus runs a subquery on its distributed tables only when it is not
 * correlated with the sites (a reference table).
 */
export async function recentSites(orm: Orm, now: Date, siteIds?: string[]): Promise<RecentSite[]> {
  // Arrays go as PostgreSQL array literals (the values are uuids).
  const ids = siteIds ? [`{${siteIds.join(',')}}`] : [];
  // In an order of the hour's own: a run that stops at its budget leaves other sites for the next one each time.
  const hour = now.toISOString().slice(0, 13);
  return orm.em
    .fork()
    .getConnection()
    .execute<RecentSite[]>(
      `with recent as materialized (
         select distinct a.site_id from day_arrivals a
          where a.day >= ?::date ${siteIds ? 'and a.site_id = any(?::uuid[])' : ''}
       )
       select s.id, s.timezone, s.settings from sites s where s.id in (select site_id from recent)
        order by md5(s.id::text || ?)`,
      [addDays(now.toISOString().slice(0, 10), -31), ...ids, hour],
      'all',
    );
}

async function fill(orm: Orm, opts: ResultDaysOptions): Promise<ResultDaysRun> {
  const now = opts.now ?? new Date();
  const span = opts.days ?? 30;
  const sites = await recentSites(orm, now, opts.siteIds);
  const out: ResultDaysRun = { ran: true, sites: 0, stale: 0, failed: 0, unfinished: 0 };
  const runEnds = Date.now() + (opts.runMs ?? RUN_MS);
  for (const [i, site] of sites.entries()) {
    if (i > 0 && Date.now() >= runEnds) {
      out.unfinished += sites.length - i;
      break;
    }
    // Each part's own clock starts when it is asked: it gets what is left of the site's share (at least a day).
    const siteEnds = Math.min(runEnds, Date.now() + (opts.siteMs ?? SITE_MS));
    const left = () => ({ budgetMs: Math.max(0, siteEnds - Date.now()) });
    try {
      const ctx = siteCtx(orm.em.fork(), site, now);
      const range = { from: addDays(ctx.today, -span), to: addDays(ctx.today, -1) };
      const days = splitUtcDays(range, ctx.timezone, addDays(ctx.rawStart, 1)).stored;
      out.stale += await dropStale(orm, site.id, days);
      const settings = readSettings(site.settings);
      await storedGoalRows(ctx, days, settings.goals.map(matcherOf), left());
      const eventGoal = settings.goals.find((g) => g.type === 'event');
      for (const e of settings.experiments) {
        await storedExperimentRows(ctx, days, e, eventGoal ? matcherOf(eventGoal) : null, left());
      }
      for (const steps of await savedFunnelSteps(ctx)) await storedFunnelRows(ctx, days, steps, {}, left());
      const goals = goalDefs(settings.goals);
      for (const zoom of ['section', 'page', 'element'] as const) {
        const q = {
          range,
          zoom,
          who: 'human' as const,
          anchor: null,
          goals,
          convertedGoal: firstEventGoal(goals) + 1,
          ...abOf(settings.experiments),
        };
        await keepJourneyDays(ctx, q, days, left());
        // The span the dashboard's 30-day journeys read, so its first ask of the day finds it built.
        await warmJourneySpan(ctx, { ...q, range: resolveRange({ days: SPAN_WARM_DAYS }, ctx.today) }, left());
      }
      out.sites++;
    } catch (e) {
      // Past its share: what was stored stays, the next run goes on from there (as an ask of the results does).
      if (e instanceof AppError && e.status === 503) out.unfinished++;
      else {
        out.failed++;
        opts.logger?.error(`result days: site ${site.id} failed`, e);
      }
    }
  }
  if (out.stale) opts.logger?.info(`result days: ${out.stale} stored days recomputed after late rows`);
  if (out.unfinished) opts.logger?.info(`result days: ${out.unfinished} sites left for the next run (the run's time budget)`);
  return out;
}
