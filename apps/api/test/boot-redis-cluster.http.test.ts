import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type CollectSite, collectSite } from './support/collect.ts';
import {
  createOwnDatabase,
  type ServerProcess,
  type StreamLog,
  sendReport,
  spawnServer,
  storedCounts,
  waitUntilStored,
} from './support/faults.ts';
import { startTestServer } from './support/server.ts';

/**
 * The real server entry (`main.ts`, as `npm start` runs it) given `REDIS_CLUSTER_NODES`: hot state and the write
 * buffer on the run's Redis Cluster. It says so when it listens and in `/readyz`, and a page report it
 * acknowledges is stored. A database of its own: a real server runs its jobs over every site at start-up.
 */
describe.skipIf(!inject('redisClusterNodes'))('a server started with REDIS_CLUSTER_NODES', () => {
  let db: { url: string; drop(): Promise<void> };
  let orm: Orm;
  let site: CollectSite;
  let server: ServerProcess | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-boot-cluster-'));

  beforeAll(async () => {
    db = await createOwnDatabase(inject('databaseUrl'));
    orm = await createOrm(db.url, { poolMax: 2 });
    const t = await startTestServer({ databaseUrl: db.url, hot: 'memory', mail: 'outbox' });
    site = await collectSite(t, 'boot-cluster.example');
    await t.close();
  });
  afterAll(async () => {
    if (server?.proc.exitCode === null) server.proc.kill('SIGKILL');
    await orm?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps hot state and the write buffer on the cluster, says so, stores what it acknowledged and stops', async () => {
    server = await spawnServer({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      REDIS_CLUSTER_NODES: (inject('redisClusterNodes') as string[]).join(','),
    });
    expect(server.output()).toMatch(/listening on \S+ \(hot state: redis-cluster;/);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', hotState: 'ok (redis-cluster)' });

    const log: StreamLog = { acked: [], answers: [], violations: [] };
    for (let i = 0; i < 5; i++) expect((await sendReport(server.url, site, `boot-cluster-${i}`, log)).status).toBe(202);
    expect(await waitUntilStored(orm, site.siteId, log.acked, 20_000)).toEqual([]);
    expect([...(await storedCounts(orm, site.siteId)).values()]).toEqual([1, 1, 1, 1, 1]);
    // Had the buffer not reached the cluster, it would have said so (and kept the rows in the process).
    expect(server.output()).not.toMatch(/Redis unreachable/);

    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
