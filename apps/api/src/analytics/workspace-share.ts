// Each workspace's share of a node's stats pool. A workspace's stats slots are counted across nodes, but one question
// runs two statements at once and a batch four questions: one workspace's slow questions took every connection of the
// pool, and every other workspace's dashboard waited for one (then 503).
import { AsyncLocalStorage } from 'node:async_hooks';

/** The workspace whose stats question is running, carried through its awaits (`inWorkspaceShare`). */
const asking = new AsyncLocalStorage<string>();

/** Runs `fn` as a question of `workspaceId`: its statements take their turns within the workspace's share. */
export function inWorkspaceShare<R>(workspaceId: string, fn: () => Promise<R>): Promise<R> {
  return asking.run(workspaceId, fn);
}

/** Connections of the stats pool one workspace holds at most on this node: half the pool (at least one). */
export const workspaceShareOf = (poolSize: number) => Math.max(1, Math.ceil(poolSize / 2));

interface Share {
  busy: number;
  waiting: (() => void)[];
}

/**
 * The stats pool's `connectTurn` (packages/db `createOrm`): a statement of a workspace that holds `share` connections
 * already waits, in order, for one of them to be given back. Statements outside a question (jobs) take no turn.
 */
export function workspaceTurns(share: number): () => Promise<(() => void) | undefined> {
  const shares = new Map<string, Share>();
  return async () => {
    const workspaceId = asking.getStore();
    if (workspaceId === undefined) return undefined;
    const held = shares.get(workspaceId) ?? { busy: 0, waiting: [] };
    shares.set(workspaceId, held);
    if (held.busy < share) held.busy++;
    else await new Promise<void>((resolve) => held.waiting.push(resolve));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      // The turn passes to the next waiting statement of the workspace, or the workspace holds one fewer.
      const next = held.waiting.shift();
      if (next) return next();
      held.busy--;
      if (held.busy === 0) shares.delete(workspaceId);
    };
  };
}
