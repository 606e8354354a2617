import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';

/**
 * `npm run redis:cluster` (scripts/redis-cluster.ts run as a command): it starts a cluster under
 * `DATA_DIR/redis-cluster`, prints the nodes and the setting to use, serves keys of every slot, and on Ctrl-C
 * stops every node and removes its folder.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** Whether something accepts connections on 127.0.0.1:port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe.skipIf(!inject('redisClusterNodes'))('npm run redis:cluster', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-redis-cluster-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints REDIS_CLUSTER_NODES of a cluster that serves every slot, and stops it on Ctrl-C', async () => {
    const cli = spawn(process.execPath, ['--import', 'tsx', 'scripts/redis-cluster.ts', '--replicas', '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    cli.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    cli.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(out).toMatch(/^REDIS_CLUSTER_NODES=\S+$/m), { timeout: 60_000, interval: 100 });
      const nodes = (/^REDIS_CLUSTER_NODES=(\S+)$/m.exec(out)?.[1] ?? '').split(',');
      expect(nodes).toHaveLength(3);
      // Its own list of nodes: three masters sharing the 16,384 slots.
      expect(out.match(/[ ,]master /g)).toHaveLength(3);
      expect(existsSync(path.join(dataDir, 'redis-cluster'))).toBe(true);

      const client = new Cluster(nodes);
      const keys = Array.from({ length: 30 }, (_, i) => `cli-test:${i}`);
      await Promise.all(keys.map((k) => client.set(k, k)));
      expect(await Promise.all(keys.map((k) => client.get(k)))).toEqual(keys);
      // The keys landed on every master.
      const held = await Promise.all(client.nodes('master').map((m) => m.dbsize()));
      expect(held.filter((n) => n > 0)).toHaveLength(3);
      await client.quit();

      cli.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toMatch(/Redis Cluster stopped/);
      const ports = nodes.map((n) => Number(n.split(':')[1]));
      expect(await Promise.all(ports.map(accepts))).toEqual([false, false, false]);
      expect(existsSync(path.join(dataDir, 'redis-cluster'))).toBe(false);
    } finally {
      if (cli.exitCode === null) {
        cli.kill('SIGINT');
        await exited;
      }
    }
  });
});
