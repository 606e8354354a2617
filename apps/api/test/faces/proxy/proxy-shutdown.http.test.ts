import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOwnDatabase, type ServerProcess, spawnServer } from '../../support/faults.ts';
import { type Origin, proxySite, startOrigin, viaProxy } from '../../support/proxy.ts';
import { startTestServer } from '../../support/server.ts';

const HOST = 'shop.proxy-shutdown.example';

/**
 * The real server process (`main.ts`) gets SIGTERM while proxied requests keep coming: every request the
 * origin answered through it is recorded, although its record was still waiting in the process (records go
 * in batches every half second) when the signal came. On a database of its own, as the other SIGTERM test.
 */
describe('proxy mode: SIGTERM while requests are proxied', () => {
  let db: { url: string; drop(): Promise<void> };
  let orm: Orm;
  let origin: Origin;
  let siteId: string;
  let server: ServerProcess | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-proxy-sigterm-'));

  beforeAll(async () => {
    db = await createOwnDatabase(inject('databaseUrl'));
    orm = await createOrm(db.url, { poolMax: 2 });
    origin = await startOrigin();
    const t = await startTestServer({ databaseUrl: db.url, hot: 'memory', mail: 'outbox' });
    siteId = (await proxySite(t, HOST, origin.url, { mode: 'challenge' })).siteId;
    await t.close();
  });
  afterAll(async () => {
    if (server?.proc.exitCode === null) server.proc.kill('SIGKILL');
    await origin?.close();
    await orm?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records every request answered before it exits 0', async () => {
    server = await spawnServer({ NODE_ENV: 'production', DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    const s = server;
    const answered: string[] = [];
    let stop = false;
    let n = 0;
    // Four visitors in a row each, until the server is gone.
    const loops = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const p = `/page-${++n}`;
        try {
          const res = await viaProxy({ url: s.url }, HOST, p);
          if (res.status === 200 && res.body === `origin GET ${p}`) answered.push(p);
        } catch {
          if (s.proc.exitCode !== null) return;
        }
      }
    });
    await expect.poll(() => answered.length, { timeout: 30_000 }).toBeGreaterThan(20);
    s.proc.kill('SIGTERM');
    const exit = await s.exited;
    stop = true;
    await Promise.all(loops);
    expect(exit, s.output()).toEqual({ code: 0, signal: null });
    const rows = (await orm.em.fork().execute('select path, status, decision from requests where site_id = ?', [siteId])) as {
      path: string;
      status: number;
      decision: string;
    }[];
    const stored = new Set(rows.map((r) => r.path));
    expect(answered.filter((p) => !stored.has(p))).toEqual([]);
    expect(rows.length).toBe(stored.size);
    // Production logs JSON lines: no line at level error (nor a readable one, should the format change).
    expect(s.output()).not.toMatch(/"level":"error"|\bERROR\b/);
  });
});
