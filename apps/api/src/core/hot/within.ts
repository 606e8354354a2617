// Hot-store calls that must never hold a request up (rate budgets, the credentials generation, behaviour
// memory): each gets an answer within its deadline, its fallback past it or when the call fails.
//
// One shared timer checks every pending deadline, instead of a timer per call: the collect path makes two such
// calls per report and token requests one, and a timer each (created, unref'd, firing 100 ms later on a settled
// race) cost more than the in-process store's counting itself (the collect budgets' admitReport timed alone; the
// whole report's cost moved within noise: docs/performance/history.md,
// "A later session: CPU per request, stage by stage").

import type { HotStore } from './store.ts';

/** How often pending deadlines are checked: a fallback comes at most this late. */
const TICK_MS = 10;

interface Waiter {
  deadline: number;
  giveUp: () => void;
}

const pending = new Set<Waiter>();
let ticker: ReturnType<typeof setInterval> | null = null;

function tick() {
  const now = Date.now();
  for (const w of pending) {
    if (w.deadline > now) continue;
    pending.delete(w);
    w.giveUp();
  }
  if (pending.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}

/** `p`'s answer, or `fallback` once `ms` have passed (within TICK_MS) or when `p` fails. */
export function answerWithin<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const waiter: Waiter = { deadline: Date.now() + ms, giveUp: () => resolve(fallback) };
    pending.add(waiter);
    // Unreferenced: a pending hot-store call never keeps the process alive by itself.
    ticker ??= setInterval(tick, TICK_MS).unref();
    p.then(
      (v) => {
        pending.delete(waiter);
        resolve(v);
      },
      () => {
        pending.delete(waiter);
        resolve(fallback);
      },
    );
  });
}

/**
 * A call to `hot` answered within `ms` (else `fallback`), as `answerWithin`, unless `hot` is the
 * in-process store: it answers at once and cannot hang, so there is no deadline to race (a promise and a
 * waiter fewer per call on the busiest routes: collect budgets, token generations).
 */
export function hotAnswer<T>(hot: Pick<HotStore, 'kind'>, p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return hot.kind === 'memory' ? p.catch(() => fallback) : answerWithin(p, ms, fallback);
}
