import type { ChainableCommander, Cluster } from 'ioredis';

/** How long a push waits for a replica to confirm it (Redis checks these timeouts every tenth of a second). */
export const REPLICA_WAIT_MS = 100;
/** After a replica did not confirm in time, pushes to its master stop waiting for one this long (and are kept in the process too). */
const LAGGING_FOR_MS = 5000;

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

/**
 * `script`, answering `{its answer, the id of the node that ran it, how many replicas it has}`: the replicas as
 * they were when the push ran, those the cluster lists for the node (connected or not, failed or not) or, with
 * none listed, those connected to it. A master hears of a replica that just attached over the cluster bus, up to
 * half the node timeout after the replica has its copy; the connection shows it at once. (`INFO` only then:
 * with replicas attached it slows every push, docs/performance/history.md.)
 */
const withNodeAndReplicas = (script: string) => `local function run() ${script} end
local answer = run()
local me = redis.call('CLUSTER', 'MYID')
local listed = #redis.call('CLUSTER', 'REPLICAS', me)
if listed > 0 then return { answer, me, listed } end
local connected = tonumber(string.match(redis.call('INFO', 'replication'), 'connected_slaves:(%d+)')) or 0
return { answer, me, connected }`;
/** What a node answers about itself, asked by a script: a script goes to its key's master like any keyed command. */
const MY_ID = `return redis.call('CLUSTER', 'MYID')`;

/** A node id a script answered, or MismatchedReply. */
function nodeIdOf(reply: unknown, what: string): string {
  if (typeof reply !== 'string' || !NODE_ID.test(reply)) throw new MismatchedReply(what);
  return reply;
}

/** How many replicas a push script answered its node has, or MismatchedReply. */
function replicasOf(reply: unknown): number {
  if (typeof reply !== 'number' || !Number.isInteger(reply) || reply < 0) throw new MismatchedReply('a push');
  return reply;
}

/**
 * Redis copies a master's writes to its replicas after answering them: a master that dies can take with it a
 * write its replica never had, and the replica takes over without it. A report answered 202 on that write
 * would be lost. So a push to a master with replicas waits for one replica's confirmation (`WAIT 1`); when
 * none confirms in time (a replica paused, cut off or far behind), the push is not `confirmed` and its
 * caller keeps its own copy as well (the rows' ids make a second insert a no-op).
 *
 * The push's script answers how many replicas its node has at the moment it ran: listed by the cluster, or
 * connected. None: no replica can take over without this write (one that attaches later copies it in its first
 * sync), so the push neither waits nor copies; a cluster without replicas costs nothing. The replicas are asked
 * with every push, not counted now and then: a count a few seconds old missed a replica that had just attached,
 * and its master, paused, was replaced by it without the pushes it had answered meanwhile. The cluster's list
 * alone missed one for up to half the node timeout after it attached (docs/performance/history.md, "A push a
 * replica confirms").
 *
 * `WAIT` confirms every earlier write of the connection it is sent on, so the pushes answered in one turn of
 * the event loop share one. It confirms a push only when sent to the node that ran it with no connection of
 * the client lost in between (a new connection's `WAIT` covers none of the old one's writes). After a miss,
 * pushes to that node stop waiting for a while and are kept both ways, so a dead replica does not add the
 * wait to every report.
 *
 * CLUSTER commands are asked in scripts, never in a pipeline: ioredis (6.0) sends a pipeline's CLUSTER commands
 * while it reconnects and refuses the others, so the pipeline is never written while the node's connection
 * waits for its reply, and every later reply goes to the command before (docs/operations/scale-out.md).
 * A reply of the wrong shape throws `MismatchedReply`.
 */
export class ReplicatedPush {
  /** Until when pushes to a node (by id) do not wait for its replicas: one did not confirm in time. */
  private readonly laggingUntil = new Map<string, number>();
  /** The next `WAIT` of each queue, while pushes can still join it. */
  private readonly waits = new Map<string, Promise<Confirmation>>();
  /** Connections lost so far (each closed one leaves the cluster client's pool). */
  private lost = 0;
  private readonly script: string;

  /** Pushes with `script` (one key, its arguments), run on the key's master. */
  constructor(
    private readonly redis: Cluster,
    script: string,
    private readonly now: () => number = Date.now,
  ) {
    this.script = withNodeAndReplicas(script);
    redis.on('-node', () => this.lost++);
  }

  /** Runs the script on `key`'s master; its answer, and whether it is kept beyond that master alone. */
  async eval(key: string, args: (string | number)[]): Promise<{ answer: unknown; confirmed: boolean }> {
    const lost = this.lost;
    const reply = await this.redis.eval(this.script, 1, key, ...args);
    if (!Array.isArray(reply) || reply.length !== 3) throw new MismatchedReply('a push');
    const [answer, node, replicas] = [reply[0], nodeIdOf(reply[1], 'a push'), replicasOf(reply[2])];
    if (replicas === 0) return { answer, confirmed: true };
    if (this.now() < (this.laggingUntil.get(node) ?? 0)) return { answer, confirmed: false };
    const confirmation = await this.nextWait(key);
    if (confirmation.replicas < 1) this.laggingUntil.set(node, this.now() + LAGGING_FOR_MS);
    return { answer, confirmed: confirmation.replicas >= 1 && confirmation.node === node && this.lost === lost };
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
