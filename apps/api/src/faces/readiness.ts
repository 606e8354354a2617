import { within } from '../core/deadline.ts';
import type { Deps } from '../core/deps.ts';

export interface Readiness {
  /** Both the database and the hot store answer. */
  ready: boolean;
  /** `degraded`: one of them does not, and the node serves what it can (collect keeps answering 202). */
  body: { status: 'ready' | 'degraded'; database: string; hotState: string };
}

/** How long an answer is shared, and how long each check may take before it counts as unreachable. */
const SHARED_MS = 1000;
const CHECK_MS = 2000;

/**
 * `/readyz`'s answer (app.ts answers 200 for it unless `?strict`: PostgreSQL and Redis are shared by every node, so
 * a load balancer dropping each node whose check failed dropped them all at once, collect's degraded mode with
 * them). The database and the hot store asked at most once a second however many ask (it is on the
 * public port, and each ask held a main-pool connection: a stranger's loop stood in front of every sign-in), and
 * each check given two seconds at most.
 */
export function readinessOf(deps: Pick<Deps, 'orm' | 'hot'>): () => Promise<Readiness> {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  const reachable = async (check: Promise<unknown>) => {
    let ok = false;
    const settled = await within(
      check.then(() => {
        ok = true;
      }),
      CHECK_MS,
    );
    return settled && ok ? 'ok' : 'unreachable';
  };
  const check = async (): Promise<Readiness> => {
    const [database, hot] = await Promise.all([reachable(deps.orm.em.fork().execute('select 1')), reachable(deps.hot.ping())]);
    const ready = database === 'ok' && hot === 'ok';
    return { ready, body: { status: ready ? 'ready' : 'degraded', database, hotState: `${hot} (${deps.hot.kind})` } };
  };
  return () => {
    if (last && Date.now() - last.at < SHARED_MS) return last.answer;
    last = { at: Date.now(), answer: check() };
    return last.answer;
  };
}
