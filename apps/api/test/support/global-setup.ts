import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@us/db';
import type { TestProject } from 'vitest/node';
import type { CitusNode } from '../../../../scripts/citus/cluster.ts';
import { type RedisCluster, startRedisCluster } from '../../../../scripts/redis-cluster.ts';
import { type DatabaseKind, startTestDatabase } from './test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** `citus` in the Citus lane (`npm run test:citus`). */
    databaseKind: DatabaseKind;
    /** The Citus lane's workers (`fault-citus.http.test.ts` stops one); empty otherwise. */
    citusWorkers: CitusNode[];
    redisUrl: string | null;
    /** Some nodes of the run's Redis Cluster (`host:port`), or null without redis-server. */
    redisClusterNodes: string[] | null;
  }
}

/** The lanes (vitest projects) whose suites run on the Redis Cluster too. */
const CLUSTER_LANES = ['service', 'http'];

function hasRedisServer() {
  return spawnSync('sh', ['-c', 'command -v redis-server && command -v redis-cli'], { stdio: 'ignore' }).status === 0;
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const { Redis } = await import('ioredis');
  for (let i = 0; i < 50; i++) {
    const r = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.ping();
      await r.quit();
      return { url: `redis://127.0.0.1:${port}`, proc };
    } catch {
      r.disconnect();
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  proc.kill();
  throw new Error('redis-server did not start');
}

/**
 * Once per test run: an embedded PostgreSQL (or the Citus lane's cluster: test-database.ts) with every
 * migration applied, and a real redis-server and a Redis Cluster (three masters, one replica each) when the
 * machine has redis-server (CI installs it and must use it: CI=true without redis-server fails the run). Only
 * the service and http lanes use the Redis Cluster.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-test-'));
  const withRedis = hasRedisServer();
  if (!withRedis && process.env.CI)
    throw new Error('CI must test against a real redis-server: install it (apt-get install redis-server)');
  if (!withRedis) console.warn('⚠ redis-server not found: the Redis hot-state tests are skipped on this machine');
  // The cluster starts while PostgreSQL does (a few seconds each).
  const clusterStarting: Promise<RedisCluster | undefined> =
    withRedis && CLUSTER_LANES.includes(project.name) ? startRedisCluster() : Promise.resolve(undefined);
  clusterStarting.catch(() => {}); // awaited below; this only keeps a failure from counting as unhandled meanwhile
  let db: Awaited<ReturnType<typeof startTestDatabase>>;
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  try {
    db = await startTestDatabase(dir);
    redis = withRedis ? await startRedis() : undefined;
  } catch (err) {
    await (await clusterStarting.catch(() => undefined))?.stop();
    throw err;
  }
  const cluster = await clusterStarting;
  project.provide('databaseUrl', db.url);
  project.provide('databaseKind', db.kind);
  project.provide('citusWorkers', db.citusWorkers);
  project.provide('redisUrl', redis?.url ?? null);
  project.provide('redisClusterNodes', cluster?.nodes ?? null);

  return async () => {
    redis?.proc.kill();
    await cluster?.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
