import type { Orm } from '@us/db';
import { applySiteRetention } from '../analytics/rollup/retention.ts';
import { runRollups } from '../analytics/rollup/rollup.ts';
import { runTodayRollups } from '../analytics/rollup/rollup-today.ts';
import { purgeDeletedSites } from '../analytics/rollup/site-purge.ts';
import type { Logger } from '../core/logger.ts';
import { runAlerts } from '../features/alerts/alerts-job.ts';
import type { AlertDeps } from '../features/alerts/rule-columns.ts';
import { runBilling } from '../features/billing/billing-job.ts';
import type { BillingProvider } from '../features/billing/provider.ts';
import { sweepExports } from '../features/export/export-sweep.ts';
import type { CopyStore } from '../features/export/storage.ts';
import { type IngressJobSetup, runIngressChecks } from '../features/hostnames/index.ts';
import { runDueImports, sweepAbandonedImports } from '../features/imports/index.ts';
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
  /** Site-days per rollup run. Default 500. */
  rollupMaxDays?: number;
  catchUpMs?: number;
  /** How often the current day's rollups are checked for a newer quarter-hour boundary. Default 5 minutes. */
  todayEveryMs?: number;
  /** How often started imports are looked for. Default 10 seconds. */
  importsEveryMs?: number;
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
  /** What alerts need (stats, mailer, links, the webhook cipher): rules are looked at every 5 minutes. */
  alerts?: AlertDeps;
  /** Settings, addresses and hot state: pending proxy hostnames' DNS records are checked every minute. */
  proxyIngress?: IngressJobSetup;
}

/** What a run returns when it stopped at its bound with more to do: the next run comes after `catchUpMs`. */
export const BEHIND = Symbol('behind');

/** One step of a job's run; a failure is logged as `jobs: <name> failed`. */
export interface JobStep {
  name: string;
  run(opts: JobsOptions): Promise<unknown>;
}

/** A background job: how often it runs, whether this node runs it at all, and one run. */
export interface Job extends JobStep {
  /** Milliseconds from the end of one run to the start of the next (`catchUpMs` after a run that returned BEHIND). */
  every(opts: JobsOptions): number;
  /** False when the options lack what the job needs: it is not started. */
  enabled(opts: JobsOptions): boolean;
  /** Runs after `run` in the same run, whether `run` failed or not (it reads what `run` wrote). */
  followedBy?: JobStep;
  /**
   * Its runs make much garbage on the event loop's thread: after one that grew the process, memory is given back
   * (a collection of ~100-200 ms, so only for jobs that run rarely; core/heap-release.ts).
   */
  releasesMemory?: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const always = () => true;

/** What most runs take from the options; the clock is read when the run starts. */
const runOpts = (o: JobsOptions) => ({ logger: o.logger, siteIds: o.siteIds, now: o.now?.() });

/** Each run function lives in its wing; this table says how often it runs and on what it depends. */
export const JOBS: readonly Job[] = [
  {
    name: 'rollups',
    every: (o) => o.rollupEveryMs ?? HOUR,
    enabled: always,
    async run(o) {
      const run = await runRollups(o.orm, { ...runOpts(o), maxDays: o.rollupMaxDays });
      // Behind while runs make headway: a day failing every time (it waits for its next try) does not stop
      // the catching up of the others, and a run in which every day failed (the database gone) waits its hour.
      return run.more && run.rolled + run.empty > 0 ? BEHIND : undefined;
    },
    // The results' per-day store is built from the rollups.
    followedBy: {
      name: 'result days',
      run: (o) => runResultDays(o.orm, runOpts(o)),
    },
    // Hourly; the per-day store's days are read and written on this thread (the rollups' counting has its own).
    releasesMemory: true,
  },
  {
    name: "today's rollups",
    every: (o) => o.todayEveryMs ?? 300_000,
    enabled: always,
    run: (o) => runTodayRollups(o.orm, runOpts(o)),
  },
  {
    name: 'site retention',
    every: (o) => o.retentionEveryMs ?? 86_400_000,
    enabled: always,
    // Then deleted sites' rows: in the same run, not a job of its own beside it (each job running holds a connection
    // for its lock and takes more for its work: one more at start-up could take the pool's last).
    async run(o) {
      const kept = await applySiteRetention(o.orm, runOpts(o));
      await purgeDeletedSites(o.orm, runOpts(o));
      await sweepAbandonedImports(o.orm, runOpts(o));
      return kept;
    },
  },
  {
    name: 'export sweep',
    every: () => HOUR,
    enabled: always,
    run: (o) => sweepExports(o.orm, o.exportCopies, o.now?.() ?? new Date()),
  },
  {
    name: 'search pull',
    every: () => HOUR,
    enabled: (o) => o.searchPull !== undefined,
    run: (o) => runSearchPull(o.orm, o.searchPull as PullSetup /* enabled says it is there */, runOpts(o)),
  },
  {
    name: 'billing',
    every: () => HOUR,
    enabled: (o) => o.billing !== undefined,
    run: (o) => runBilling(o.orm, o.billing?.provider ?? null, { logger: o.logger, now: o.now?.() }),
  },
  {
    name: 'e-mail reports',
    every: () => HOUR,
    enabled: (o) => o.emailReports !== undefined,
    run: (o) => runEmailReports(o.orm, o.emailReports as ReportDeps /* enabled says it is there */, runOpts(o)),
  },
  {
    // Started imports (and running ones whose node stopped), one after another; each resumes at its checkpoint.
    name: 'imports',
    every: (o) => o.importsEveryMs ?? 10_000,
    enabled: always,
    run: (o) => runDueImports(o.orm, { logger: o.logger, siteIds: o.siteIds }),
  },
  {
    // Often, for first_pageview's sake; hour and day rules look at each closed period once.
    name: 'alerts',
    every: () => 5 * MINUTE,
    enabled: (o) => o.alerts !== undefined,
    run: (o) => runAlerts(o.orm, o.alerts as AlertDeps /* enabled says it is there */, runOpts(o)),
  },
  {
    // Each hostname on its own schedule, backing off with age (ingress-job.ts); a run checks those due.
    name: 'proxy hostnames',
    every: () => MINUTE,
    enabled: (o) => o.proxyIngress !== undefined,
    run: (o) => runIngressChecks(o.orm, o.proxyIngress as IngressJobSetup /* enabled says it is there */, runOpts(o)),
  },
];
