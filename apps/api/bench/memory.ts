// The `memory` section: the API's resident memory (RSS: what the machine gives the process) idle after its
// start, and under the bench's collect load while the dashboard of the collect site is read every second and
// the collect site's day is rolled up over and over (the quarter-hour job's step, in the API's rollup
// thread). Goals (issue 41): ≤ 200 MB idle, ≤ 350 MB under that load, so the API and PostgreSQL serve a
// site of 1M pageviews a month on a 1 GB machine. `rssAfter` prints the RSS after each other section.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ApiInfo } from './api-server.ts';
import { askChild } from './child.ts';
import { dashboardReads } from './dashboard.ts';
import { collectRequest } from './export.ts';
import { runPacedLean } from './lean-pacer.ts';
import { formatErrors } from './load.ts';
import { percentile } from './stats.ts';

export const RSS_GOALS_MB = { idle: 200, load: 350 } as const;

const mb = (bytes: number) => bytes / 1024 / 1024;
const usageOf = (proc: ChildProcess) => askChild<NodeJS.MemoryUsage>(proc, 'rss');
const rssOf = async (proc: ChildProcess) => mb((await usageOf(proc)).rss);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What glibc's main heap (`[heap]` in /proc/<pid>/smaps) holds of a process's RSS, MB; null where that is not
 * readable. Freed blocks stay in it while live ones sit above them: what varied most between idle readings
 * (docs/performance/history.md, "The mmap threshold at 64 KB").
 */
function glibcHeapOf(pid: number | undefined): number | null {
  try {
    const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    const heap = /\[heap\]\n(?:.*\n)*?Rss:\s+(\d+) kB/.exec(smaps);
    return heap ? Number(heap[1]) / 1024 : 0;
  } catch {
    return null;
  }
}

/** One line: the API's RSS now (no forced GC), e.g. after a section. */
export async function rssAfter(proc: ChildProcess, section: string) {
  return `API RSS after ${section}: ${(await rssOf(proc)).toFixed(1)} MB`;
}

export interface MemoryOptions {
  /** Collect reports a second (paced, open loop) and where that rate comes from, for the line. */
  rate: number;
  rateNote: string;
  /** How long the load runs. */
  seconds: number;
  /** How long the idle API is left alone before its RSS is read. */
  settleSeconds: number;
}

/** Runs the section; answers its lines. The collect site is emptied again afterwards. */
export async function benchMemory(
  api: { proc: ChildProcess; info: ApiInfo },
  o: MemoryOptions,
  log: (s: string) => void,
): Promise<string[]> {
  const { proc, info } = api;
  log(`› memory: the API left idle ${o.settleSeconds} s, then ${o.seconds} s of collect load, dashboard reads and rollups`);
  await sleep(o.settleSeconds * 1000);
  const idleUsage = await usageOf(proc);
  const idle = mb(idleUsage.rss);
  const glibcHeap = glibcHeapOf(proc.pid);
  const afterGc = mb((await askChild<NodeJS.MemoryUsage>(proc, 'memory')).rss);

  const samples: number[] = [];
  let heapPeak = 0;
  let rollupHeapPeak = 0;
  let loading = true;
  const sampler = (async () => {
    while (loading) {
      const [u, r] = await Promise.all([usageOf(proc), askChild<{ total: number }>(proc, 'rollup-heap')]);
      samples.push(mb(u.rss));
      heapPeak = Math.max(heapPeak, mb(u.heapTotal));
      rollupHeapPeak = Math.max(rollupHeapPeak, mb(r.total));
      await sleep(250);
    }
  })();
  const dashboard = dashboardReads(info.url, info.token, info.collect.siteId);
  let reads = 0;
  const notOk: number[] = [];
  const reader = (async () => {
    while (loading) {
      const started = performance.now();
      for (const status of await dashboard.read()) if (status !== 200) notOk.push(status);
      reads++;
      await sleep(Math.max(0, 1000 - (performance.now() - started)));
    }
  })();
  let rollups = 0;
  const roller = (async () => {
    while (loading) {
      await askChild(proc, 'rollup-collect');
      rollups++;
      await sleep(1000);
    }
  })();
  const collect = await runPacedLean(info.url, collectRequest(info.collect.publicKey, info.collect.hostname), {
    rate: o.rate,
    seconds: o.seconds,
  }).finally(() => {
    loading = false;
  });
  await Promise.all([sampler, reader, roller]);
  dashboard.close();
  const afterLoad = await rssOf(proc);
  await askChild(proc, 'reset-collect');

  samples.sort((a, b) => a - b);
  const peak = samples.at(-1) ?? Number.NaN;
  const ofGoal = (v: number, goal: number) => `${v.toFixed(1)} MB of the ${goal} MB goal${v > goal ? ' (over!)' : ''}`;
  return [
    'memory (the API process; PostgreSQL is a process of its own):',
    `  API RSS idle ${ofGoal(idle, RSS_GOALS_MB.idle)}   (after a collection giving memory back: ${afterGc.toFixed(1)} MB; main heap ${mb(idleUsage.heapTotal).toFixed(1)} MB${glibcHeap === null ? '' : `; glibc's heap ${glibcHeap.toFixed(1)} MB`})`,
    `  API RSS under collect load ${ofGoal(peak, RSS_GOALS_MB.load)} (peak)   p50 ${percentile(samples, 50).toFixed(1)} MB   ${samples.length} samples; main heap peak ${heapPeak.toFixed(1)} MB, the rollup thread's ${rollupHeapPeak.toFixed(1)} MB`,
    `    load: ${Math.round(o.rate).toLocaleString('en')} collect reports/s (${o.rateNote}) for ${o.seconds} s, ${collect.requests.toLocaleString('en')} answered, ${formatErrors(collect)} errors, p99 ${collect.p99.toFixed(2)} ms;`,
    `    ${reads} dashboard views (6 reads each${notOk.length ? `, ${notOk.length} not 200: ${[...new Set(notOk)].join(', ')}` : ''}), ${rollups} rollups of the collect site's day`,
    `  API RSS after the load ${afterLoad.toFixed(1)} MB`,
  ];
}
