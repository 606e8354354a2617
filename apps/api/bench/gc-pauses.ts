// The bench API's garbage-collection pauses, read over its IPC channel (`gc-pauses`, api-server.ts) around a
// paced figure: a paced round's tail is mostly the moments the event loop stood still, and a collection is
// the one such moment the process can name.
import { constants, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

export interface GcPauses {
  /** The longest pause since the last `take`, in ms, and its kind. */
  longestMs: number;
  longestKind: 'minor' | 'major' | 'other' | 'none';
  /** Major (mark-compact) collections since the last `take`. */
  majors: number;
  /** How late the event loop ran its timers since the last `take` (perf_hooks' delay histogram), p99 and max, in ms. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const kindOf = (kind: number | undefined): GcPauses['longestKind'] =>
  kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'minor' : kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : 'other';

/** Watches this process's collections from now on; `take` answers what came since the last `take`. */
export function watchGcPauses() {
  let now = { longestMs: 0, longestKind: 'none' as GcPauses['longestKind'], majors: 0 };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kindOf((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind);
      if (kind === 'major') now.majors++;
      if (e.duration > now.longestMs) now = { ...now, longestMs: e.duration, longestKind: kind };
    }
  }).observe({ entryTypes: ['gc'] });
  return {
    take(): GcPauses {
      const seen = { ...now, loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6 };
      now = { longestMs: 0, longestKind: 'none', majors: 0 };
      delay.reset();
      return seen;
    },
  };
}

/** `longest GC pause 6.1 ms (minor), 0 major; event loop late by …` for a paced line. */
export const formatGcPauses = (p: GcPauses) =>
  `longest GC pause ${p.longestMs.toFixed(1)} ms (${p.longestKind}), ${p.majors} major; event loop late by p99 ${p.loopDelayP99Ms.toFixed(1)} ms, at most ${p.loopDelayMaxMs.toFixed(1)} ms`;
