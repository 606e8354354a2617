import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisCluster } from '../../../../scripts/redis-cluster.ts';
import { toAppError } from '../../src/core/error-map.ts';
import { RedisStore } from '../../src/core/hot/index.ts';

type Cluster = Awaited<ReturnType<typeof startRedisCluster>>;

/**
 * Every node of a Redis Cluster stops (a partition, all restarted at once). The cluster client then knows no node
 * to send a command to, and held each command in a queue of its own with no time limit: calls without a deadline
 * of their own (sign-in counters, stats slots, idempotency keys) hung instead of answering 503, and the queue grew
 * with every report. Now each such command fails at once, as with one Redis gone; when the nodes are back, so is
 * the store.
 */
describe.skipIf(!inject('redisClusterNodes'))('fault: every node of a cluster stops', () => {
  let cluster: Cluster;
  let hot: RedisStore;
  const prefix = `us:test-${randomUUID()}:`;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0, nodeTimeoutMs: 1000 });
    hot = new RedisStore({ cluster: cluster.nodes }, prefix);
    await hot.set('kept', 'before', 600);
  });
  afterAll(async () => {
    await hot?.close();
    await cluster?.stop();
  });

  it('answers each command with a failure that routes turn into 503, and serves again once the nodes are back', async () => {
    for (const port of cluster.ports) await cluster.stopNode(port);
    // The client notices its connections closed; from then on a command is refused, never held.
    await expect
      .poll(
        () =>
          hot.get('kept').then(
            () => 'answered',
            () => 'refused',
          ),
        { timeout: 15_000 },
      )
      .toBe('refused');
    const failures = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        hot.incr(`n${i}`, 60).then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    );
    for (const failure of failures) expect(toAppError(failure).status).toBe(503);

    for (const port of cluster.ports) await cluster.startNode(port);
    await cluster.waitUntilServing();
    // (Killed nodes keep nothing: the store starts empty, as a restarted Redis without persistence does.)
    await expect
      .poll(
        () =>
          hot
            .set('again', 'after', 60)
            .then(() => hot.get('again'))
            .catch(() => 'refused'),
        { timeout: 30_000 },
      )
      .toBe('after');
  });
});
