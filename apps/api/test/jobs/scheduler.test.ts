import type { Orm } from '@us/db';
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { applySiteRetention } from '../../src/analytics/rollup/retention.ts';
import { runRollups } from '../../src/analytics/rollup/rollup.ts';
import { runTodayRollups } from '../../src/analytics/rollup/rollup-today.ts';
import { purgeDeletedSites } from '../../src/analytics/rollup/site-purge.ts';
import type { Logger } from '../../src/core/logger.ts';
import { jobLastRun, jobLastSuccess } from '../../src/core/observe/metrics.ts';
import { runBilling } from '../../src/features/billing/billing-job.ts';
import { sweepExports } from '../../src/features/export/export-sweep.ts';
import type { CopyStore } from '../../src/features/export/storage.ts';
import { runEmailReports } from '../../src/features/reports/reports-job.ts';
import type { ReportDeps } from '../../src/features/reports/send.ts';
import type { PullSetup } from '../../src/features/search/pull.ts';
import { runSearchPull } from '../../src/features/search/search-pull-job.ts';
import { runResultDays } from '../../src/jobs/result-days.ts';
import { type JobsOptions, startJobs } from '../../src/jobs/scheduler.ts';

// Every job's own work is replaced: these tests are about when the scheduler runs it.
vi.mock('../../src/analytics/rollup/rollup.ts', () => ({ runRollups: vi.fn() }));
vi.mock('../../src/analytics/rollup/rollup-today.ts', () => ({ runTodayRollups: vi.fn() }));
vi.mock('../../src/analytics/rollup/retention.ts', () => ({ applySiteRetention: vi.fn() }));
vi.mock('../../src/analytics/rollup/site-purge.ts', () => ({ purgeDeletedSites: vi.fn() }));
vi.mock('../../src/features/billing/billing-job.ts', () => ({ runBilling: vi.fn() }));
vi.mock('../../src/features/export/export-sweep.ts', () => ({ sweepExports: vi.fn() }));
vi.mock('../../src/features/imports/imports-job.ts', () => ({ runDueImports: vi.fn() }));
vi.mock('../../src/features/imports/abandoned.ts', () => ({ ABANDONED_IMPORT_DAYS: 30, sweepAbandonedImports: vi.fn() }));
vi.mock('../../src/features/reports/reports-job.ts', () => ({ runEmailReports: vi.fn() }));
vi.mock('../../src/features/search/search-pull-job.ts', () => ({ runSearchPull: vi.fn() }));
vi.mock('../../src/jobs/result-days.ts', () => ({ runResultDays: vi.fn() }));

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const work = {
  rollups: runRollups as Mock,
  resultDays: runResultDays as Mock,
  today: runTodayRollups as Mock,
  retention: applySiteRetention as Mock,
  purge: purgeDeletedSites as Mock,
  exports: sweepExports as Mock,
  search: runSearchPull as Mock,
  billing: runBilling as Mock,
  reports: runEmailReports as Mock,
};
const runs = () => Object.fromEntries(Object.entries(work).map(([name, fn]) => [name, fn.mock.calls.length]));

const orm = { name: 'the orm' } as unknown as Orm;
const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
const clock = new Date('2031-05-06T07:08:09Z');
const setups = {
  exportCopies: { name: 'copies' } as unknown as CopyStore,
  searchPull: { name: 'search' } as unknown as PullSetup,
  billing: { provider: null },
  emailReports: { name: 'reports' } as unknown as ReportDeps,
};
const everything: JobsOptions = { orm, logger, siteIds: ['s1'], now: () => clock, ...setups };

const rollupRun = (over: { more?: boolean; failed?: number; rolled?: number } = {}) => ({
  ran: true,
  rolled: 1,
  empty: 0,
  more: false,
  failed: 0,
  ...over,
});

let stops: (() => Promise<void>)[] = [];
const start = (opts: JobsOptions) => {
  const jobs = startJobs(opts);
  stops.push(() => jobs.stop());
  return jobs;
};

beforeEach(() => {
  vi.useFakeTimers();
  for (const fn of Object.values(work)) fn.mockReset().mockResolvedValue({});
  work.rollups.mockResolvedValue(rollupRun());
  logger.error.mockReset();
});

afterEach(async () => {
  for (const stop of stops) await stop();
  stops = [];
  vi.useRealTimers();
});

describe('the job scheduler', () => {
  it('runs every job at start-up with what it needs', async () => {
    start(everything);
    expect(runs()).toMatchObject({ rollups: 0, today: 0 }); // on the first tick, not inside startJobs
    await vi.advanceTimersByTimeAsync(0);
    expect(runs()).toEqual({
      rollups: 1,
      resultDays: 1,
      today: 1,
      retention: 1,
      purge: 1,
      exports: 1,
      search: 1,
      billing: 1,
      reports: 1,
    });
    const scoped = { logger, siteIds: ['s1'], now: clock };
    expect(work.rollups).toHaveBeenCalledWith(orm, scoped);
    expect(work.resultDays).toHaveBeenCalledWith(orm, scoped);
    expect(work.today).toHaveBeenCalledWith(orm, scoped);
    expect(work.retention).toHaveBeenCalledWith(orm, scoped);
    expect(work.purge).toHaveBeenCalledWith(orm, scoped);
    expect(work.exports).toHaveBeenCalledWith(orm, setups.exportCopies, clock);
    expect(work.search).toHaveBeenCalledWith(orm, setups.searchPull, scoped);
    expect(work.billing).toHaveBeenCalledWith(orm, null, { logger, now: clock });
    expect(work.reports).toHaveBeenCalledWith(orm, setups.emailReports, scoped);
  });

  it('runs each job again after its own period', async () => {
    start(everything);
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    expect(runs()).toMatchObject({ today: 2, rollups: 1, retention: 1, exports: 1 });
    await vi.advanceTimersByTimeAsync(HOUR - 5 * MINUTE);
    expect(runs()).toEqual({
      rollups: 2,
      resultDays: 2,
      today: 13,
      retention: 1,
      purge: 1,
      exports: 2,
      search: 2,
      billing: 2,
      reports: 2,
    });
    await vi.advanceTimersByTimeAsync(23 * HOUR);
    expect(runs()).toMatchObject({ retention: 2, rollups: 25, billing: 25 });
  });

  // The defect: a run that found the job's lock taken (another node's run, or one of this node stuck holding it)
  // counted as a success, so the dashboards' "last success" stayed fresh while the job did nothing for hours.
  it('counts a run skipped for another holder of the lock as no success, only as a run', async () => {
    const successOf = async (job: string) => (await jobLastSuccess.get()).values.find((v) => v.labels.job === job)?.value ?? null;
    jobLastSuccess.reset();
    work.reports.mockResolvedValue({ ran: false });
    work.billing.mockResolvedValue({ ran: true, result: {} });
    start(everything);
    await vi.advanceTimersByTimeAsync(0);
    expect(await successOf('e-mail reports')).toBeNull();
    expect(await successOf('billing')).toBeGreaterThan(0);
    expect((await jobLastRun.get()).values.find((v) => v.labels.job === 'e-mail reports')).toBeDefined();
  });

  it('takes the periods it is given', async () => {
    start({ orm, rollupEveryMs: 1000, todayEveryMs: 2000, retentionEveryMs: 3000 });
    await vi.advanceTimersByTimeAsync(6000);
    expect(runs()).toMatchObject({ rollups: 7, resultDays: 7, today: 4, retention: 3, exports: 1 });
  });

  it('does not start the jobs whose options are missing', async () => {
    start({ orm });
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(runs()).toEqual({
      rollups: 3,
      resultDays: 3,
      today: 25,
      retention: 1,
      purge: 1,
      exports: 3,
      search: 0,
      billing: 0,
      reports: 0,
    });
    expect(work.exports).toHaveBeenCalledWith(orm, undefined, expect.any(Date));
  });

  it('logs a failed run and tries again at the next period', async () => {
    const down = new Error('database is down');
    work.retention.mockRejectedValueOnce(down);
    work.reports.mockRejectedValueOnce(down);
    start(everything);
    await vi.advanceTimersByTimeAsync(0);
    expect(logger.error.mock.calls).toEqual([
      ['jobs: site retention failed', down],
      ['jobs: e-mail reports failed', down],
    ]);
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(runs()).toMatchObject({ reports: 2, retention: 1 });
    await vi.advanceTimersByTimeAsync(23 * HOUR);
    expect(runs()).toMatchObject({ retention: 2 });
    expect(logger.error).toHaveBeenCalledTimes(2);
  });

  it("builds the results' days once the rollups are done, even when they failed", async () => {
    let rolled = () => {};
    work.rollups.mockImplementationOnce(() => new Promise((resolve) => (rolled = () => resolve(rollupRun()))));
    start(everything);
    await vi.advanceTimersByTimeAsync(0);
    expect(runs()).toMatchObject({ rollups: 1, resultDays: 0 });
    rolled();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs()).toMatchObject({ rollups: 1, resultDays: 1 });

    const down = new Error('lock lost');
    work.rollups.mockRejectedValueOnce(down);
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(logger.error).toHaveBeenCalledWith('jobs: rollups failed', down);
    expect(runs()).toMatchObject({ rollups: 2, resultDays: 2 });
    work.resultDays.mockRejectedValueOnce(down);
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(logger.error).toHaveBeenLastCalledWith('jobs: result days failed', down);
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(runs()).toMatchObject({ rollups: 4, resultDays: 4 });
  });

  it('follows a rollup run that stopped at its bound after catchUpMs, then goes back to its period', async () => {
    work.rollups
      .mockResolvedValueOnce(rollupRun({ more: true }))
      .mockResolvedValueOnce(rollupRun({ more: true }))
      .mockResolvedValueOnce(rollupRun({ more: true, failed: 1 }))
      .mockResolvedValueOnce(rollupRun({ more: true, rolled: 0, failed: 3 }));
    start({ orm, catchUpMs: 30_000 });
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(runs()).toMatchObject({ rollups: 2, resultDays: 2 });
    // The third failed a day but rolled others up: still catching up (a day failing every time waits for its
    // next try, rollup-failures.ts, and holds nobody back).
    await vi.advanceTimersByTimeAsync(30_000);
    expect(runs()).toMatchObject({ rollups: 3 });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(runs()).toMatchObject({ rollups: 4 });
    // The fourth stopped at its bound without a day done (the database gone): no catching up, the next is an hour later.
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(runs()).toMatchObject({ rollups: 4 });
    await vi.advanceTimersByTimeAsync(1);
    expect(runs()).toMatchObject({ rollups: 5 });
  });

  it('catches up after a minute unless told otherwise', async () => {
    work.rollups.mockResolvedValueOnce(rollupRun({ more: true }));
    start({ orm });
    await vi.advanceTimersByTimeAsync(MINUTE - 1);
    expect(runs()).toMatchObject({ rollups: 1 });
    await vi.advanceTimersByTimeAsync(1);
    expect(runs()).toMatchObject({ rollups: 2 });
  });

  it('stop() waits for a running job, and nothing runs after it', async () => {
    let finish = () => {};
    work.retention.mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)));
    const jobs = start(everything);
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = jobs.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    const before = runs();
    await vi.advanceTimersByTimeAsync(48 * HOUR);
    expect(runs()).toEqual(before);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves its timers unref'd, so they never keep the process alive", async () => {
    const unref = vi.fn();
    const realSetTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const t = realSetTimeout(fn, ms);
      const original = t.unref.bind(t);
      t.unref = () => {
        unref();
        return original();
      };
      return t;
    }) as typeof setTimeout);
    start(everything);
    spy.mockRestore();
    expect(unref).toHaveBeenCalledTimes(8);
  });
});
