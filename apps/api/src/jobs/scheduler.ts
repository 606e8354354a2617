import type { Orm } from '@us/db';
import { applySiteRetention } from '../analytics/rollup/retention.ts';
import { runRollups } from '../analytics/rollup/rollup.ts';
import { runTodayRollups } from '../analytics/rollup/rollup-today.ts';
import type { Logger } from '../core/logger.ts';
import { runBilling } from '../features/billing/billing-job.ts';
import type { BillingProvider } from '../features/billing/provider.ts';
import { sweepExports } from '../features/export/export-sweep.ts';
import type { CopyStore } from '../features/export/storage.ts';
import { runEmailReports } from '../features/reports/reports-job.ts';
import type { ReportDeps } from '../features/reports/send.ts';
import type { PullSetup } from '../features/search/pull.ts';
import { runSearchPull } from '../features/search/search-pull-job.ts';
import { runResultDays } from './result-days.ts';

export interface JobsOptions {
  orm: Orm;
  logger?: Logger;
  /** Rollup period. Default 1 hour; a run that stopped at its bound is followed after `catchUpMs`. */
  rollupEveryMs?: number;
  catchUpMs?: number;
  /** How often the current day's rollups are checked for a newer quarter-hour boundary. Default 5 minutes. */
  todayEveryMs?: number;
  /** Per-site retention period. Default 24 hours. */
  retentionEveryMs?: number;
  /** Only these sites (tests on a shared database). */
  siteIds?: string[];
  /** The clock (tests). */
  now?: () => Date;
  /** Where export copies are kept (features/export/copies.ts); swept hourly. */
  exportCopies?: CopyStore;
  /** The search providers and credentials' cipher: connections due are pulled hourly. */
  searchPull?: PullSetup;
  /** Month closing and overage reports run hourly; with no provider, months are still closed. */
  billing?: { provider: BillingProvider | null };
  /** What e-mail reports need (stats, mailer, links): reports due are sent hourly. */
  emailReports?: ReportDeps;
}

export interface Jobs {
  /** Waits for a running job, then stops the timers. */
  stop(): Promise<void>;
}

/**
 * Starts the background jobs on this node: rollups (then the results' per-day store) at start-up and hourly, the current
 * day's rollups up to the last quarter-hour boundary (checked every 5 minutes), per-site retention at
 * start-up and daily, the sweep of day-old exports, the search pull (connections due), billing (months closed, overage reported) and the e-mail reports due hourly. Each run takes its job's advisory lock, so across nodes one run does the work.
 * Timers are unref'd; a failed run is logged and retried at the next period.
 * (Raw partition drops run with the ingest partition upkeep: `maintainPartitions`.)
 */
export function startJobs(opts: JobsOptions): Jobs {
  const rollupEvery = opts.rollupEveryMs ?? 3600_000;
  const catchUp = opts.catchUpMs ?? 60_000;
  const retentionEvery = opts.retentionEveryMs ?? 86_400_000;
  const todayEvery = opts.todayEveryMs ?? 300_000;
  let stopped = false;
  const running = new Set<Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();

  function later(ms: number, fn: () => Promise<void>) {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      if (stopped) return;
      const p = fn().finally(() => running.delete(p));
      running.add(p);
    }, ms);
    t.unref();
    timers.add(t);
  }

  async function rollups() {
    let next = rollupEvery;
    try {
      const run = await runRollups(opts.orm, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
      if (run.more && !run.failed) next = catchUp;
    } catch (e) {
      opts.logger?.error('jobs: rollups failed', e);
    }
    try {
      await runResultDays(opts.orm, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error('jobs: result days failed', e);
    }
    later(next, rollups);
  }

  async function today() {
    try {
      await runTodayRollups(opts.orm, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error("jobs: today's rollups failed", e);
    }
    later(todayEvery, today);
  }

  async function retention() {
    try {
      await applySiteRetention(opts.orm, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error('jobs: site retention failed', e);
    }
    later(retentionEvery, retention);
  }

  async function exports() {
    try {
      await sweepExports(opts.orm, opts.exportCopies, opts.now?.() ?? new Date());
    } catch (e) {
      opts.logger?.error('jobs: export sweep failed', e);
    }
    later(3600_000, exports);
  }

  async function search() {
    const setup = opts.searchPull;
    if (!setup) return;
    try {
      await runSearchPull(opts.orm, setup, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error('jobs: search pull failed', e);
    }
    later(3600_000, search);
  }

  async function billing() {
    if (!opts.billing) return;
    try {
      await runBilling(opts.orm, opts.billing.provider, { logger: opts.logger, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error('jobs: billing failed', e);
    }
    later(3600_000, billing);
  }

  async function reports() {
    const deps = opts.emailReports;
    if (!deps) return;
    try {
      await runEmailReports(opts.orm, deps, { logger: opts.logger, siteIds: opts.siteIds, now: opts.now?.() });
    } catch (e) {
      opts.logger?.error('jobs: e-mail reports failed', e);
    }
    later(3600_000, reports);
  }

  later(0, rollups);
  later(0, today);
  later(0, retention);
  later(0, exports);
  later(0, search);
  later(0, billing);
  later(0, reports);

  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
