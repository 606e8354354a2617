import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisCluster } from '../../../../scripts/redis-cluster.ts';
import { toAppError } from '../../src/core/error-map.ts';
import { RedisStore } from '../../src/core/hot/index.ts';

type Cluster = Awaited<ReturnType<typeof startRedisCluster>>;

/**
 * A Redis Cluster without replicas loses one master: nothing takes its slots over, so the hot store is not
 * whole (what `/readyz` and the `us_hot_store_up` metric read), its keys fail as a lost Redis does (routes
 * answer 503), and the keys of the other masters are served throughout. When the master is back, so is all of it.
 * (With replicas, a replica takes over instead: fault-redis.http.test.ts.)
 */
describe.skipIf(!inject('redisClusterNodes'))('fault: a master of a cluster without replicas stops', () => {
  let cluster: Cluster;
  let hot: RedisStore;
  const prefix = `us:test-${randomUUID()}:`;
  /** Keys of this test, by the master that serves them. */
  const byMaster = new Map<number, string[]>();

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0, nodeTimeoutMs: 1000 });
    hot = new RedisStore({ cluster: cluster.nodes }, prefix);
    for (let i = 0; i < 30; i++) {
      const key = `k${i}`;
      const port = await cluster.masterOf(`${prefix}${key}`);
      byMaster.set(port, [...(byMaster.get(port) ?? []), key]);
      await hot.set(key, 'before', 600);
    }
    expect(byMaster.size).toBe(3);
  });
  afterAll(async () => {
    await hot?.close();
    await cluster?.stop();
  });

  it('answers the other masters’ keys, refuses its own as Redis being down, and is whole again once it is back', async () => {
    const [stopped, ...running] = [...byMaster.keys()] as [number, ...number[]];
    const gone = byMaster.get(stopped) as string[];
    const served = running.flatMap((p) => byMaster.get(p) as string[]);
    await cluster.stopNode(stopped);

    // The other nodes count it failed after the node timeout: from then on the store is not whole.
    await expect
      .poll(
        () =>
          hot.ping().then(
            () => 'whole',
            () => 'not whole',
          ),
        { timeout: 15_000 },
      )
      .toBe('not whole');
    for (const key of served) {
      await hot.set(key, 'during', 600);
      expect(await hot.get(key)).toBe('during');
    }
    const failure = await hot.get(gone[0] as string).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(toAppError(failure)).toMatchObject({ status: 503, retryAfter: 5 });

    await cluster.startNode(stopped);
    await cluster.waitUntilServing();
    await expect
      .poll(
        () =>
          hot.ping().then(
            () => 'whole',
            () => 'not whole',
          ),
        { timeout: 15_000 },
      )
      .toBe('whole');
    // Its keys are served again (it kept nothing: these nodes keep no files), and the others kept theirs.
    await expect.poll(() => hot.set(gone[0] as string, 'after', 600).then(() => hot.get(gone[0] as string))).toBe('after');
    expect(await hot.get(served[0] as string)).toBe('during');
  });
});
