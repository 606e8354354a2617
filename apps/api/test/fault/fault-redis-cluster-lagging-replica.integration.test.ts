import { randomUUID } from 'node:crypto';
import { pageviewRow } from '@us/db';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startRedisCluster } from '../../../../scripts/redis-cluster.ts';
import { RedisIngestBuffer } from '../../src/analytics/ingest/index.ts';
import { connectRedis } from '../../src/core/hot/redis-connection.ts';

type Cluster = Awaited<ReturnType<typeof startRedisCluster>>;

const rows = (label: string, n: number) =>
  Array.from({ length: n }, (_, i) => pageviewRow(randomUUID(), new Date(), { pageviewId: `${label}-${i}`, visitor: 'v' }));
const ids = (list: { pageviewId: string }[]) => list.map((r) => r.pageviewId).sort();

/** What the flusher is handed until `expected` ids were all taken (a row may come twice: see below). */
async function takeAll(buffer: RedisIngestBuffer, expected: string[]) {
  const taken = new Set<string>();
  await expect
    .poll(
      async () => {
        const batch = await buffer.take('pageviews', 100).catch(() => null);
        if (batch) {
          for (const row of batch.rows) taken.add(row.pageviewId);
          await batch.ack();
        }
        return [...taken].sort();
      },
      { timeout: 15_000 },
    )
    .toEqual(expected);
}

/**
 * Redis copies a master's writes to its replica after answering them. A master that dies before its replica
 * has a write loses it when the replica takes over; a report answered 202 on that write would be lost with it.
 */
describe.skipIf(!inject('redisClusterNodes'))('fault: a master dies with writes its replica had not copied', () => {
  const clusters: Cluster[] = [];
  const closers: (() => unknown)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    for (const cluster of clusters) await cluster.stop();
  });

  it('keeps the acknowledged rows the promoted replica never had', { timeout: 90_000 }, async () => {
    const cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
    clusters.push(cluster);
    const prefix = `ingest-${randomUUID()}`;
    const queue = `us:${prefix}:pageviews`;
    const buffer = new RedisIngestBuffer({ cluster: cluster.nodes }, prefix);
    const raw = connectRedis({ cluster: cluster.nodes }, { maxRetriesPerRequest: 1 });
    closers.push(
      () => buffer.close(),
      () => raw.disconnect(),
    );

    // (On a loaded machine a replica may not confirm the first push in time: it is then kept in the process too.)
    await buffer.enqueue('pageviews', rows('copied', 5));
    const master = await cluster.masterOf(queue);
    // A node learns of the others' replicas by gossip: on a loaded machine, a moment after the cluster serves.
    await expect.poll(() => cluster.replicaOf(master), { timeout: 15_000 }).toBeGreaterThan(0);
    const replica = (await cluster.replicaOf(master)) as number;

    // The replica has the first rows; then it copies nothing more: paused, and its link cut (a paused replica
    // still receives into its socket).
    const onMaster = new Redis({ host: '127.0.0.1', port: master, lazyConnect: true });
    await onMaster.connect();
    const onReplica = new Redis({ host: '127.0.0.1', port: replica, lazyConnect: true });
    await onReplica.connect();
    await onReplica.call('READONLY'); // a replica answers reads of its master's keys only when asked so
    await expect.poll(() => onReplica.llen(queue), { timeout: 15_000 }).toBe(5);
    onReplica.disconnect();
    cluster.pauseNode(replica);
    await onMaster.call('CLIENT', 'KILL', 'TYPE', 'replica');
    onMaster.disconnect();
    await buffer.enqueue('pageviews', rows('uncopied', 5)); // what the collector answers 202 on

    await cluster.stopNode(master, 'SIGKILL');
    cluster.resumeNode(replica);
    await cluster.waitUntilServing(30_000);
    expect(await cluster.masterOf(queue)).toBe(replica);
    // The promoted replica has only what it had copied.
    await expect.poll(() => raw.lrange(queue, 0, -1).catch(() => null), { timeout: 15_000 }).not.toBeNull();
    const inRedis = (await raw.lrange(queue, 0, -1)).map((r) => JSON.parse(r) as { pageviewId: string });
    expect(ids(inRedis)).toEqual(ids(rows('copied', 5)));

    // The flusher is handed all ten (the process's copy; its ids make any second insert a no-op).
    await takeAll(buffer, ids([...rows('copied', 5), ...rows('uncopied', 5)]));
  });

  it('waits for a replica that attached since the last push: its master then replaced without the rows is not trusted', {
    timeout: 120_000,
  }, async () => {
    const cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
    clusters.push(cluster);
    const prefix = `ingest-${randomUUID()}`;
    const queue = `us:${prefix}:pageviews`;
    const buffer = new RedisIngestBuffer({ cluster: cluster.nodes }, prefix);
    closers.push(() => buffer.close());

    // The queue's master dies and its replica takes over, with no replica of its own: pushes there need no
    // confirmation (nothing can take over without them).
    const first = await cluster.masterOf(queue);
    await cluster.stopNode(first, 'SIGKILL');
    await cluster.waitUntilServing(30_000);
    const promoted = await cluster.masterOf(queue);
    // (Once the buffer's client reaches the new master: a push in the failover's wake may go to the fallback.)
    const reached = () =>
      buffer.size('pageviews').then(
        () => true,
        () => false,
      );
    await expect.poll(reached, { timeout: 15_000 }).toBe(true);
    await buffer.enqueue('pageviews', rows('alone', 3));

    // The old master comes back as the new one's replica and copies the queue. The new master hears of it over
    // the cluster bus, up to half the node timeout after the others: until then, only their connection shows it
    // (a replica cut off before that is not seen: docs/operations/scale-out.md).
    await cluster.startNode(first);
    await expect.poll(() => cluster.replicaOf(promoted), { timeout: 30_000 }).toBe(first);
    const onMaster = new Redis({ host: '127.0.0.1', port: promoted, lazyConnect: true });
    await onMaster.connect();
    const promotedId = String(await onMaster.call('CLUSTER', 'MYID'));
    const listed = async () => ((await onMaster.call('CLUSTER', 'REPLICAS', promotedId)) as string[]).join('\n');
    await expect.poll(listed, { timeout: 15_000 }).toContain(`:${first}@`);
    const onReplica = new Redis({ host: '127.0.0.1', port: first, lazyConnect: true });
    await onReplica.connect();
    await onReplica.call('READONLY');
    const queued = await onMaster.llen(queue);
    await expect.poll(() => onReplica.llen(queue), { timeout: 15_000 }).toBe(queued);
    onReplica.disconnect();

    // Seconds after the last push, the replica stops copying (paused, its link cut), a push is answered, and
    // the master dies: the replica takes over without that push's rows.
    cluster.pauseNode(first);
    await onMaster.call('CLIENT', 'KILL', 'TYPE', 'replica');
    onMaster.disconnect();
    await buffer.enqueue('pageviews', rows('uncopied', 5));
    await cluster.stopNode(promoted, 'SIGKILL');
    cluster.resumeNode(first);
    await cluster.waitUntilServing(30_000);
    expect(await cluster.masterOf(queue)).toBe(first);

    // The flusher is still handed every row.
    await takeAll(buffer, ids([...rows('alone', 3), ...rows('uncopied', 5)]));
  });

  it('keeps no copy in the process on a cluster without replicas (its masters never fail over)', {
    timeout: 60_000,
  }, async () => {
    const cluster = await startRedisCluster({ replicas: 0, nodeTimeoutMs: 1000 });
    clusters.push(cluster);
    const buffer = new RedisIngestBuffer({ cluster: cluster.nodes }, `ingest-${randomUUID()}`);
    closers.push(() => buffer.close());
    await buffer.enqueue('pageviews', rows('alone', 3));
    await buffer.enqueue('pageviews', rows('again', 3));
    expect(buffer.takeLocal()).toEqual([]);
    await takeAll(buffer, ids([...rows('alone', 3), ...rows('again', 3)]));
  });
});
