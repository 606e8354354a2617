// Section `mixed`: POST /collect's latency paced at 30 % of bare http's throughput, alone first and last, and between while the
// 10M-pageview stats site's dashboard view (six reads at once) is read once a second and the service's own
// rollup steps of a busy day run in the API process (each step a quarter-hour of that day, as today's job
// keeps it; the day a copy on a site of its own, step-site.ts, so the view reads the stats site as production
// keeps it): the view alone, a step starting every window alone, both, then both with steps back to back. Each
// figure in alternating rounds beside bare http paced at the same rate, which the same background load slows
// too: the gap between the two lines is what the service adds.
import type { ChildProcess } from 'node:child_process';
import { createOrm, type Orm } from '@us/db';
import { addDays } from '../src/analytics/range.ts';
import { formatPaced, pacedBeside, type Rounds } from './beside.ts';
import { askChild } from './child.ts';
import { dashboardReads } from './dashboard.ts';
import type { GcPauses } from './gc-pauses.ts';
import { type LoadRequest, splitByWindows } from './load.ts';
import { ensureStatsSite, percentile } from './stats.ts';
import { ensureStepSite } from './step-site.ts';

interface MixedOptions {
  bareUrl: string;
  bareRps: number;
  api: { url: string; token: string; dbUrl: string; workspaceId: string; proc: ChildProcess };
  collect: LoadRequest;
  statsPageviews: number;
  rounds: Omit<Rounds, 'concurrency'>;
  log: (s: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A background load: a dashboard view a second or none, and a rollup step starting every `stepEveryMs`, back to back (null) or none. */
interface Load {
  name: string;
  views: boolean;
  stepEveryMs: number | null | 'none';
}

/** Reads the dashboard view once a second and runs rollup steps as `load` says, until `stop()`; what they did. */
function backgroundLoad(o: MixedOptions, siteId: string, steps: { siteId: string; day: string }, load: Load) {
  let stopped = false;
  const views: number[] = [];
  const notOk = new Set<number>();
  let stepped = 0;
  /** When each step ran (`performance.now()` ms): the reports due then are told apart from the others. */
  const stepWindows: [number, number][] = [];
  const reads = dashboardReads(o.api.url, o.api.token, siteId);
  const viewing = (async () => {
    while (load.views && !stopped) {
      const started = performance.now();
      for (const status of await reads.read()) if (status !== 200) notOk.add(status);
      const took = performance.now() - started;
      views.push(took);
      await sleep(Math.max(0, 1000 - took));
    }
  })();
  const rolling = (async () => {
    const every = load.stepEveryMs;
    while (every !== 'none' && !stopped) {
      const started = performance.now();
      const next = started + (every ?? 0);
      await askChild(o.api.proc, 'rollup-step', steps);
      stepWindows.push([started, performance.now()]);
      stepped += 1;
      while (!stopped && performance.now() < next) await sleep(Math.min(50, next - performance.now()));
    }
  })();
  return async () => {
    stopped = true;
    await Promise.all([viewing, rolling]);
    reads.close();
    views.sort((a, b) => a - b);
    return { views, notOk: [...notOk], steps: stepped, stepWindows };
  };
}

export async function mixedLoad(o: MixedOptions): Promise<string[]> {
  const orm: Orm = await createOrm(o.api.dbUrl, { poolMax: 4 });
  try {
    const s = await ensureStatsSite(orm, o.api.workspaceId, o.statsPageviews, o.log);
    const day = addDays(s.to, -1);
    const steps = await ensureStepSite(orm, o.api.workspaceId, s.siteId, day, o.log);
    const rate = o.bareRps * 0.3;
    const paced = { ...o.rounds, rate };
    const lines = [`collect under mixed load (paced at 30% of bare http, ${Math.round(rate)} reports/s):`];
    await askChild(o.api.proc, 'gc-pauses');
    const alone = await pacedBeside(o.bareUrl, o.api.url, o.collect, paced);
    lines.push(formatPaced('  alone', alone, o.bareRps, await askChild<GcPauses>(o.api.proc, 'gc-pauses')));
    // Issue 41's load: a view a second and a step starting with every window (one busy site's quarter-hour
    // job, 180 times as often), first each part alone (which one to tune), then both; then steps back to back
    // (a node whose job steps many busy sites one after another).
    const every = o.rounds.seconds * 1000;
    const loads: Load[] = [
      { name: 'a dashboard view a second alone', views: true, stepEveryMs: 'none' },
      { name: `a rollup step every ${o.rounds.seconds} s alone`, views: false, stepEveryMs: every },
      { name: `a dashboard view a second and a rollup step every ${o.rounds.seconds} s`, views: true, stepEveryMs: every },
      { name: 'a dashboard view a second and rollup steps back to back', views: true, stepEveryMs: null },
    ];
    const measured = [];
    for (const load of loads) {
      const stop = backgroundLoad(o, s.siteId, steps, load);
      const mixed = await pacedBeside(o.bareUrl, o.api.url, o.collect, paced);
      const gc = await askChild<GcPauses>(o.api.proc, 'gc-pauses');
      measured.push({ load, mixed, gc, done: await stop() });
    }
    // Alone again once the loads are over: the first figure also carries whatever the API's start still costs
    // (its first round was often its slowest), so each load is compared with both.
    const after = await pacedBeside(o.bareUrl, o.api.url, o.collect, paced);
    const afterGc = await askChild<GcPauses>(o.api.proc, 'gc-pauses');
    const ofAlone = (p99: number) =>
      `${((p99 * 100) / alone.api.p99).toFixed(0)}% of alone (${alone.api.p99.toFixed(1)} ms), ` +
      `${((p99 * 100) / after.api.p99).toFixed(0)}% of alone after (${after.api.p99.toFixed(1)} ms)`;
    for (const { load, mixed, gc, done } of measured) {
      lines.push(formatPaced(`  with ${load.name}`, mixed, o.bareRps, gc));
      const views = done.views.length
        ? `${done.views.length} dashboard views of ${s.pageviews.toLocaleString('en')} pageviews (p50 ${percentile(done.views, 50).toFixed(0)} ms, ` +
          `p99 ${percentile(done.views, 99).toFixed(0)} ms${done.notOk.length ? `, answers not 200: ${done.notOk.join(', ')}` : ''})`
        : 'no dashboard view';
      lines.push(
        `    p99 with that load ${mixed.api.p99.toFixed(1)} ms = ${ofAlone(mixed.api.p99)}; meanwhile ${views} ` +
          `and ${done.steps} quarter-hour rollup steps of a copy of ${day} (${steps.pageviews.toLocaleString('en')} pageviews) in the API process`,
      );
      // Steps every window come 180 times as often as the job takes them for one busy site: the reports due
      // during a step and those due between steps, apart (what a site sees between its job's steps).
      if (done.stepWindows.length && load.stepEveryMs !== null) {
        const split = splitByWindows(mixed.apiRounds, done.stepWindows);
        const share = (split.inside.requests * 100) / (split.inside.requests + split.outside.requests);
        lines.push(
          `    reports due during a step (${share.toFixed(0)}% of them): p99 ${split.inside.p99.toFixed(1)} ms; ` +
            `due between steps: p99 ${split.outside.p99.toFixed(1)} ms = ${ofAlone(split.outside.p99)}`,
        );
      }
    }
    lines.push(formatPaced('  alone after them', after, o.bareRps, afterGc));
    return lines;
  } finally {
    await orm.close();
  }
}
