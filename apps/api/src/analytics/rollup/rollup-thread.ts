// Runs the rollup tallies in a worker thread (rollup-worker.ts), one per database, started on first use
// and ended once it has had nothing to do for a while (unreferenced: it never holds the process open).
// A thread that dies fails the site-days it was counting, and the next one starts a new thread.
import { Worker } from 'node:worker_threads';
import type { Orm } from '@us/db';
import type { RollupDone, RollupTask } from './rollup-worker.ts';

/**
 * How long a rollup thread without a task lives on. Its isolate keeps the heap of its busiest counting, idle or
 * not, and an idle isolate does not give it back; ending the thread does. A job's tasks follow each other, so a
 * job keeps its thread; the quarter-hourly rollups of today start a new one, whose start-up cost is spent in the
 * new thread, not on the event loop (figures: docs/performance/history.md,
 * "What the flag costs: the rollup thread's idle heap").
 */
export const rollupThreadIdle = { ms: 30_000 };

type Answer = ({ id: number } & RollupDone) | { id: number; error: { message: string; code?: string } };

/**
 * The thread's module: the TypeScript source beside this file, or, in the production build (apps/api/build.mjs),
 * the bundled `rollup-worker.js` beside the bundle this code was bundled into.
 */
export function rollupWorkerFile(moduleUrl: string = import.meta.url): URL {
  return new URL(moduleUrl.endsWith('.ts') ? './rollup-worker.ts' : './rollup-worker.js', moduleUrl);
}

/**
 * The process's flags a worker thread accepts: the module loaders (`--import`, `--require`, `--loader`,
 * `--conditions`), with `--import tsx` when the thread's module is TypeScript so it loads as the process does
 * (the build's JavaScript needs no loader, and a production install has no tsx). Per-process flags
 * (`--expose-gc`, `--max-old-space-size`…) make `new Worker` throw, so they are left out.
 */
export function workerExecArgv(argv: readonly string[], workerFile: URL = rollupWorkerFile()): string[] {
  const out: string[] = [];
  const loaders = /^--(import|require|loader|experimental-loader|conditions)$/;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (loaders.test(a) && i + 1 < argv.length) out.push(a, argv[++i] as string);
    else if (loaders.test(a.split('=')[0] as string) && a.includes('=')) out.push(a);
    else if (a === '-r') out.push(a, argv[++i] as string);
  }
  if (!workerFile.pathname.endsWith('.ts') || out.some((a) => a.includes('tsx'))) return out;
  return [...out, '--import', 'tsx'];
}

class RollupThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (done: RollupDone) => void; reject: (e: Error) => void }>();
  private next = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  dead = false;

  constructor(url: string, connections: number) {
    const file = rollupWorkerFile();
    this.worker = new Worker(file, {
      workerData: { url, connections },
      execArgv: workerExecArgv(process.execArgv, file),
    });
    this.worker.on('message', (a: Answer) => {
      const p = this.pending.get(a.id);
      if (!p) return;
      this.pending.delete(a.id);
      if (this.pending.size === 0) this.endWhenIdle();
      if ('rows' in a) p.resolve({ rows: a.rows, recounted: a.recounted });
      else p.reject(Object.assign(new Error(a.error.message), { code: a.error.code }));
    });
    const fail = (e: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the rollup thread exited (${code})`)));
    // After the listeners: adding a 'message' listener refs the thread again, and the process never ended.
    this.worker.unref();
  }

  run(task: Omit<RollupTask, 'id'>): Promise<RollupDone> {
    clearTimeout(this.idleTimer);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...task, id } satisfies RollupTask);
    });
  }

  private endWhenIdle() {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.terminate(), rollupThreadIdle.ms);
    this.idleTimer.unref();
  }

  /** The thread's V8 heap (its isolate's own, apart from the main thread's), or null once it ended. */
  async heap(): Promise<{ used: number; total: number } | null> {
    if (this.dead) return null;
    try {
      const h = await this.worker.getHeapStatistics();
      return { used: h.used_heap_size, total: h.total_heap_size };
    } catch {
      return null;
    }
  }

  terminate() {
    clearTimeout(this.idleTimer);
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new RollupStopped());
    this.pending.clear();
    return this.worker.terminate();
  }
}

/**
 * A site-day's rollup ended by `stopRollupThreads` (an orderly stop): no failure of the day, nothing of it was written,
 * and the next start counts it.
 */
export class RollupStopped extends Error {
  constructor() {
    super('the rollup thread was stopped (shutdown): the site-day is counted at the next start');
  }
}

const threads = new Map<string, RollupThread>();

/** The database URL of an ORM's connections. */
const urlOf = (orm: Orm) => orm.config.get('clientUrl') as string;

/**
 * Rolls up one site-day in the rollup thread of `orm`'s database (counted on up to `task.atOnce`
 * connections, written in one transaction); resolves with the rollup rows written and the visitors recounted.
 */
export function rollupInThread(orm: Orm, task: Omit<RollupTask, 'id'>): Promise<RollupDone> {
  const url = urlOf(orm);
  let thread = threads.get(url);
  if (!thread || thread.dead) {
    thread = new RollupThread(url, task.atOnce + 1);
    threads.set(url, thread);
  }
  return thread.run(task);
}

/** The V8 heaps of the rollup threads alive, added up (bytes; the bench's memory section). */
export async function rollupThreadHeaps(): Promise<{ used: number; total: number }> {
  const heaps = await Promise.all([...threads.values()].map((t) => t.heap()));
  return heaps.reduce<{ used: number; total: number }>(
    (sum, h) => (h ? { used: sum.used + h.used, total: sum.total + h.total } : sum),
    { used: 0, total: 0 },
  );
}

/** The rollup threads alive (not ended or ending). */
export const liveRollupThreads = () => [...threads.values()].filter((t) => !t.dead).length;

/** Ends every rollup thread (shutdown): their site-days in progress fail, nothing was written for them. */
export async function stopRollupThreads() {
  const all = [...threads.values()];
  threads.clear();
  await Promise.all(all.map((t) => t.terminate()));
}
