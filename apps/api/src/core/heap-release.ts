// Giving memory back to the system. With the memory reducer off (apps/api/node-flags.json) V8 collects only
// when its old generation fills up, and even then keeps the pages it freed in a pool of its own: committed,
// resident, and counted in no heap statistic. Only a memory-reducing collection (V8's "last resort" flavour,
// the one the reducer would have run) hands them back. After start-up and after background work that grew
// the process, one such collection is run here; it holds the thread it runs on for about 100-200 ms on a
// large API heap (docs/performance/history.md, "V8's page pool and glibc's heap").
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'regular' | 'last-resort' }) => void;

let gc: Gc | undefined;

/** Node exposes `gc` only with --expose-gc: the flag set now reaches a new context. */
function gcOf(): Gc {
  gc ??= (globalThis as { gc?: Gc }).gc;
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  }
  return gc;
}

/** RSS (bytes) this thread's last release left the process at. */
let releasedAt = 0;

/** A full, memory-reducing collection: garbage freed and V8's pooled pages returned to the system. */
export function releaseMemory(): void {
  gcOf()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  releasedAt = process.memoryUsage.rss();
}

/**
 * Once start-up has loaded what the process keeps (modules, the network and country tables): start-up leaves
 * tens of MB of garbage (the tables' source text among it) that no collection would otherwise come for until
 * the old generation filled up. Runs before the server listens: no request waits for it.
 */
export const collectStartupGarbage = releaseMemory;

/** How much the process may grow past its last release before background work releases again. */
export const RELEASE_GROWTH_BYTES = 32 << 20;

/**
 * After a piece of background work (a job's run, a rollup in its thread): releases when the process's RSS grew
 * by RELEASE_GROWTH_BYTES since the last release, so quiet runs cost nothing and a busy one is paid once.
 * True when it released.
 */
export function releaseAfterWork(): boolean {
  if (process.memoryUsage.rss() - releasedAt < RELEASE_GROWTH_BYTES) return false;
  releaseMemory();
  return true;
}

/** What `releaseWhenIdle` answers: called as each piece of work starts and ends. */
export interface IdleRelease {
  started(): void;
  ended(): void;
}

/**
 * Gives memory back (`release`, by default releaseAfterWork) once background work has paused for `idleMs`, or as
 * a piece ends when the last release is `maxGapMs` old: work that comes in a row (the rollup thread's site-days one
 * after another) pays for the collection once every `maxGapMs` instead of after each piece, and what it holds
 * meanwhile stays bounded (docs/performance/history.md, "Giving memory back once a row of rollups ends").
 */
export function releaseWhenIdle(idleMs: number, maxGapMs: number, release: () => unknown = releaseAfterWork): IdleRelease {
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  let last = Date.now();
  const releaseNow = () => {
    clearTimeout(timer);
    timer = undefined;
    last = Date.now();
    release();
  };
  return {
    started() {
      running++;
      clearTimeout(timer);
      timer = undefined;
    },
    ended() {
      running = Math.max(0, running - 1);
      if (running > 0) return;
      if (Date.now() - last >= maxGapMs) return releaseNow();
      clearTimeout(timer);
      timer = setTimeout(releaseNow, idleMs);
      // The thread's message port keeps it alive; the timer alone does not.
      timer.unref();
    },
  };
}
