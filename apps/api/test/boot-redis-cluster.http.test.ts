import { describe, expect, inject, it } from 'vitest';
import { collectSite } from './support/collect.ts';
import { type StreamLog, sendReport, spawnServer, storedCounts, waitUntilStored } from './support/faults.ts';
import { ownServerSuite } from './support/own-server.ts';

/**
 * The real server entry (`main.ts`, as `npm start` runs it) given `REDIS_CLUSTER_NODES`: hot state and the write
 * buffer on the run's Redis Cluster. It says so when it listens and in `/readyz`, and a page report it
 * acknowledges is stored. A database of its own: a real server runs its jobs over every site at start-up.
 */
describe.skipIf(!inject('redisClusterNodes'))('a server started with REDIS_CLUSTER_NODES', () => {
  const own = ownServerSuite('boot-cluster', (t) => collectSite(t, 'boot-cluster.example'));

  it('keeps hot state and the write buffer on the cluster, says so, stores what it acknowledged and stops', async () => {
    const site = own.made;
    const server = await spawnServer({
      DATABASE_URL: own.db.url,
      DATA_DIR: own.dataDir,
      LOG_LEVEL: 'info',
      REDIS_CLUSTER_NODES: (inject('redisClusterNodes') as string[]).join(','),
    });
    own.server = server;
    expect(server.output()).toMatch(/listening on \S+ \(hot state: redis-cluster;/);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', hotState: 'ok (redis-cluster)' });

    const log: StreamLog = { acked: [], answers: [], violations: [] };
    for (let i = 0; i < 5; i++) expect((await sendReport(server.url, site, `boot-cluster-${i}`, log)).status).toBe(202);
    expect(await waitUntilStored(own.orm, site.siteId, log.acked, 20_000)).toEqual([]);
    expect([...(await storedCounts(own.orm, site.siteId)).values()]).toEqual([1, 1, 1, 1, 1]);
    // Had the buffer not reached the cluster, it would have said so (and kept the rows in the process).
    expect(server.output()).not.toMatch(/Redis unreachable/);

    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
