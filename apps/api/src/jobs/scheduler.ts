import { releaseAfterWork } from '../core/heap-release.ts';
import { jobDuration, jobFailures, jobLastRun, jobLastSuccess } from '../core/observe/metrics.ts';
import { BEHIND, JOBS, type Job, type JobStep, type JobsOptions } from './job-table.ts';

export type { JobsOptions } from './job-table.ts';

export interface Jobs {
  /** Waits for a running job, then stops the timers. */
  stop(): Promise<void>;
}

/**
 * Starts the background jobs of `JOBS` on this node (job-table.ts: rollups then the results' per-day
 * store, the current day's rollups, per-site retention, the export sweep, the search pull, billing, the
 * e-mail reports, the proxy hostnames' DNS checks): each at start-up, then every its period after the end
 * of its last run. Each run takes its job's advisory lock, so across nodes one run does the work (the
 * proxy hostnames' run claims each hostname's check in the hot state instead). Timers are unref'd; a failed run is
 * logged and retried at the next period. A job whose options are missing is not started. After a run of a job
 * marked `releasesMemory` that grew the process, memory is given back (core/heap-release.ts).
 * (Raw partition drops run with the ingest partition upkeep: `maintainPartitions`.)
 */
export function startJobs(opts: JobsOptions): Jobs {
  const catchUp = opts.catchUpMs ?? 60_000;
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

  /** Runs one step; a failure is logged and counted, never thrown. */
  async function attempt(step: JobStep): Promise<unknown> {
    const job = step.name;
    const started = performance.now();
    try {
      const outcome = await step.run(opts);
      // A run that found the job's lock held elsewhere did nothing: no success to show (one stuck holding it
      // would otherwise look fresh every period).
      if ((outcome as { ran?: unknown } | null)?.ran !== false) jobLastSuccess.set({ job }, Date.now() / 1000);
      return outcome;
    } catch (e) {
      jobFailures.inc({ job });
      opts.logger?.error(`jobs: ${job} failed`, e);
      return undefined;
    } finally {
      jobLastRun.set({ job }, Date.now() / 1000);
      jobDuration.observe({ job }, (performance.now() - started) / 1000);
    }
  }

  async function runJob(job: Job) {
    const outcome = await attempt(job);
    if (job.followedBy) await attempt(job.followedBy);
    // A heavy run that grew the process gives memory back now, not whenever V8's old generation next fills up.
    if (job.releasesMemory) releaseAfterWork();
    later(outcome === BEHIND ? catchUp : job.every(opts), () => runJob(job));
  }

  for (const job of JOBS) if (job.enabled(opts)) later(0, () => runJob(job));

  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
