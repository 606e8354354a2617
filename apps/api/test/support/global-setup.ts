import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@us/db';
import type { TestProject } from 'vitest/node';
import { type DatabaseKind, startTestDatabase } from './test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** `citus` in the Citus lane (`npm run test:citus`). */
    databaseKind: DatabaseKind;
    redisUrl: string | null;
  }
}

function hasRedisServer() {
  return spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0;
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
 * Once per test run: an embedded PostgreSQL (or the Citus lane's cluster, test-database.ts) with every migration applied, and a real redis-server when
 * the machine has one (CI installs it and must use it: CI=true without redis-server fails the run).
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-test-'));
  const db = await startTestDatabase(dir);
  project.provide('databaseUrl', db.url);
  project.provide('databaseKind', db.kind);

  let redis: { url: string; proc: ChildProcess } | undefined;
  if (hasRedisServer()) redis = await startRedis();
  else if (process.env.CI) throw new Error('CI must test against a real redis-server: install it (apt-get install redis-server)');
  else console.warn('⚠ redis-server not found: the Redis hot-state tests are skipped on this machine');
  project.provide('redisUrl', redis?.url ?? null);

  return async () => {
    redis?.proc.kill();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
