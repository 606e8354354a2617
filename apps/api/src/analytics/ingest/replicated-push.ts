import type { ChainableCommander, Cluster } from 'ioredis';

/** How long a push waits for a replica to confirm it (Redis checks these timeouts every tenth of a second). */
export const REPLICA_WAIT_MS = 100;
/** How often the replicas of the master holding a queue are counted again (sent along with a push). */
const RECOUNT_EVERY_MS = 5000;
/** After a replica did not confirm in time, pushes stop waiting for one this long (and are kept in the process too). */
const LAGGING_FOR_MS = 5000;

/** A queue's master, as its pushes have seen it. */
interface MasterState {
  /** The node counted (`CLUSTER MYID`); '' until counted. */
  node: string;
  /** Replicas the cluster lists for it, connected or not; -1 until counted. */
  replicas: number;
  countedAt: number;
  /** Until then a replica is counted as lagging: pushes do not wait for it. */
  laggingUntil: number;
}

/** A Redis Cluster node's id: 40 hex digits. */
const NODE_ID = /^[0-9a-f]{40}$/;

/**
 * A reply that is not what its command answers: the connection no longer matches replies to commands (see
 * `ReplicatedPush`). The caller keeps the push's rows itself and drops the connections.
 */
export class MismatchedReply extends Error {
  constructor(what: string) {
    super(`Redis answered ${what} with a reply of another command`);
  }
}

/**
 * The node answering `CLUSTER NODES` (`<id> <addr> <flags> <master id> …`, one line per node) and its replicas;
 * a replica answering has none. Undefined when the text names no node as `myself`: not that command's reply.
 */
export function mastership(nodes: string): { node: string; replicas: number } | undefined {
  const lines = nodes
    .trim()
    .split('\n')
    .map((line) => line.trim().split(' '));
  const flags = (fields: string[]) => (fields[2] ?? '').split(',');
  const me = lines.find((fields) => flags(fields).includes('myself'));
  const node = me?.[0] ?? '';
  if (!me || !NODE_ID.test(node)) return undefined;
  if (!flags(me).includes('master')) return { node, replicas: 0 };
  return { node, replicas: lines.filter((fields) => fields[3] === node).length };
}

/** One `WAIT` on a queue's master: the replicas that confirmed every write its connection sent before it. */
interface Confirmation {
  /** The node that answered it (`CLUSTER MYID`). */
  node: string;
  replicas: number;
}

/** A pipeline's answers, or the first error among them. */
async function answersOf(pipeline: ChainableCommander): Promise<unknown[]> {
  const answers = (await pipeline.exec()) ?? [];
  const failed = answers.find(([err]) => err);
  if (failed) throw failed[0];
  return answers.map(([, answer]) => answer);
}

/** `script`, answering `{its answer, the id of the node that ran it}`. */
const withNodeId = (script: string) => `local function run() ${script} end\nreturn { run(), redis.call('CLUSTER', 'MYID') }`;
/** What a node answers about itself, asked by a script: a script goes to its key's master like any keyed command. */
const MY_ID = `return redis.call('CLUSTER', 'MYID')`;
const MY_NODES = `return redis.call('CLUSTER', 'NODES')`;

/** A node id a script answered, or MismatchedReply. */
function nodeIdOf(reply: unknown, what: string): string {
  if (typeof reply !== 'string' || !NODE_ID.test(reply)) throw new MismatchedReply(what);
  return reply;
}

/**
 * Redis copies a master's writes to its replicas after answering them: a master that dies can take with it a
 * write its replica never had, and the replica takes over without it. A report answered 202 on that write
 * would be lost. So on a cluster whose master has replicas, a push waits for one replica's confirmation
 * (`WAIT 1`); when none confirms in time (a replica paused, cut off or far behind), the push is not
 * `confirmed` and its caller keeps its own copy as well (the rows' ids make a second insert a no-op).
 *
 * `WAIT` confirms every earlier write of the connection it is sent on, so the pushes answered in one turn of
 * the event loop share one. It confirms a push only when sent to the node that ran it with no connection of
 * the client lost in between (a new connection's `WAIT` covers none of the old one's writes). After a miss,
 * pushes stop waiting for a while and are kept both ways, so a dead replica does not add the wait to every
 * report. A master without replicas never fails over: its pushes neither wait nor copy. A count vouches for
 * the node it was taken on only: a push another node ran (a failover, a slot moved) waits for a replica.
 *
 * CLUSTER commands are asked in scripts, never in a pipeline: ioredis (6.0) sends a pipeline's CLUSTER commands
 * while it reconnects and refuses the others, so the pipeline is never written while the node's connection
 * waits for its reply, and every later reply goes to the command before (docs/operations/scale-out.md).
 * A reply of the wrong shape throws `MismatchedReply`.
 */
export class ReplicatedPush {
  private readonly masters = new Map<string, MasterState>();
  /** The next `WAIT` of each queue, while pushes can still join it. */
  private readonly waits = new Map<string, Promise<Confirmation>>();
  private readonly counts = new Map<string, Promise<void>>();
  /** Connections lost so far (each closed one leaves the cluster client's pool). */
  private lost = 0;
  private readonly script: string;

  /** Pushes with `script` (one key, its arguments), run on the key's master. */
  constructor(
    private readonly redis: Cluster,
    script: string,
    private readonly now: () => number = Date.now,
  ) {
    this.script = withNodeId(script);
    redis.on('-node', () => this.lost++);
  }

  /** Runs the script on `key`'s master; its answer, and whether it is kept beyond that master alone. */
  async eval(key: string, args: (string | number)[]): Promise<{ answer: unknown; confirmed: boolean }> {
    let master = this.masters.get(key);
    if (!master) {
      master = { node: '', replicas: -1, countedAt: 0, laggingUntil: 0 };
      this.masters.set(key, master);
    }
    const counting = this.now() - master.countedAt >= RECOUNT_EVERY_MS ? this.count(key, master) : undefined;
    const lost = this.lost;
    const reply = await this.redis.eval(this.script, 1, key, ...args);
    if (!Array.isArray(reply) || reply.length !== 2) throw new MismatchedReply('a push');
    const [answer, node] = [reply[0], nodeIdOf(reply[1], 'a push')];
    if (master.replicas < 0) await counting; // the first push knows before it waits
    // A count vouches for the node it was taken on only: another one now serving the queue is counted again.
    if (master.node !== node) master.countedAt = 0;
    else if (master.replicas === 0) return { answer, confirmed: true };
    if (this.now() < master.laggingUntil) return { answer, confirmed: false };
    const confirmation = await this.nextWait(key);
    if (confirmation.replicas < 1) master.laggingUntil = this.now() + LAGGING_FOR_MS;
    return { answer, confirmed: confirmation.replicas >= 1 && confirmation.node === node && this.lost === lost };
  }

  /** Counts the replicas of `key`'s master again, in the background (a failed count keeps the last one). */
  private count(key: string, master: MasterState): Promise<void> {
    let counting = this.counts.get(key);
    if (!counting) {
      counting = this.redis
        .eval(MY_NODES, 1, key)
        .then((nodes) => {
          const counted = typeof nodes === 'string' ? mastership(nodes) : undefined;
          if (!counted) throw new MismatchedReply('CLUSTER NODES');
          Object.assign(master, counted, { countedAt: this.now() });
        })
        .catch(() => {})
        .finally(() => this.counts.delete(key));
      this.counts.set(key, counting);
    }
    return counting;
  }

  /** The `WAIT` sent once the pushes answered in this turn of the event loop have joined it. */
  private nextWait(key: string): Promise<Confirmation> {
    let wait = this.waits.get(key);
    if (!wait) {
      wait = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.waits.delete(key);
        // The keyed script first: a cluster sends a pipeline to the master of its first key's slot.
        const [node, replicas] = await answersOf(
          this.redis.pipeline().eval(MY_ID, 1, key).call('WAIT', '1', String(REPLICA_WAIT_MS)),
        );
        if (!Number.isInteger(replicas)) throw new MismatchedReply('WAIT');
        return { node: nodeIdOf(node, 'CLUSTER MYID'), replicas: Number(replicas) };
      });
      this.waits.set(key, wait);
    }
    return wait;
  }
}
