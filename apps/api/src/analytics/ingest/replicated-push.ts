import type { Cluster } from 'ioredis';

/** How long a push waits for a replica to confirm it (Redis checks these timeouts every tenth of a second). */
export const REPLICA_WAIT_MS = 100;
/** How often the replicas of the master holding a queue are counted again (sent along with a push). */
const RECOUNT_EVERY_MS = 5000;
/** After a replica did not confirm in time, pushes stop waiting for one this long (and are kept in the process too). */
const LAGGING_FOR_MS = 5000;

/** A queue's master, as its pushes have seen it. */
interface MasterState {
  /** Replicas the cluster lists for it, connected or not; -1 until counted. */
  replicas: number;
  countedAt: number;
  /** Until then a replica is counted as lagging: pushes do not wait for it. */
  laggingUntil: number;
}

/** Replicas of the node answering (`CLUSTER NODES`: `<id> <addr> <flags> <master id> …`, one line per node). */
export function replicasOfMyself(nodes: string): number {
  const lines = nodes
    .trim()
    .split('\n')
    .map((line) => line.trim().split(' '));
  const flags = (fields: string[]) => (fields[2] ?? '').split(',');
  const me = lines.find((fields) => flags(fields).includes('myself'));
  if (!me || !flags(me).includes('master')) return 0;
  return lines.filter((fields) => fields[3] === me[0]).length;
}

/**
 * Redis copies a master's writes to its replicas after answering them: a master that dies can take with it a
 * write its replica never had, and the replica takes over without it. A report answered 202 on that write
 * would be lost. So on a cluster whose master has replicas, a push asks for one replica's confirmation in the
 * same round trip (`WAIT 1`); when none confirms in time (a replica paused, cut off or far behind), the push
 * is not `confirmed` and its caller keeps its own copy as well (the rows' ids make a second insert a no-op).
 * After such a miss, pushes stop waiting for a while and are kept both ways, so a dead replica does not add
 * the wait to every report. A master without replicas never fails over: its pushes neither wait nor copy.
 */
export class ReplicatedPush {
  private readonly masters = new Map<string, MasterState>();

  constructor(
    private readonly redis: Cluster,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `script` on `key`'s master; its answer, and whether it is kept beyond that master alone. */
  async eval(script: string, key: string, args: (string | number)[]): Promise<{ answer: unknown; confirmed: boolean }> {
    const at = this.now();
    const master = this.masters.get(key) ?? { replicas: -1, countedAt: 0, laggingUntil: 0 };
    this.masters.set(key, master);
    const recount = at - master.countedAt >= RECOUNT_EVERY_MS;
    const lagging = at < master.laggingUntil;
    const wait = master.replicas !== 0 && !lagging;

    const pipeline = this.redis.pipeline().eval(script, 1, key, ...args);
    if (wait) pipeline.call('WAIT', '1', String(REPLICA_WAIT_MS));
    if (recount) pipeline.cluster('NODES');
    const answers = (await pipeline.exec()) ?? [];
    const failed = answers.find(([err]) => err);
    if (failed) throw failed[0];

    const [, answer] = answers[0] as [null, unknown];
    if (recount) {
      master.replicas = replicasOfMyself(String(answers.at(-1)?.[1] ?? ''));
      master.countedAt = at;
    }
    if (master.replicas === 0) return { answer, confirmed: true };
    if (!wait) return { answer, confirmed: false };
    const confirmed = Number(answers[1]?.[1]) >= 1;
    if (!confirmed) master.laggingUntil = this.now() + LAGGING_FOR_MS;
    return { answer, confirmed };
  }
}
