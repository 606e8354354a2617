import { describe, expect, it } from 'vitest';
import { spawnServer } from '../../support/faults.ts';
import { ownServerSuite } from '../../support/own-server.ts';
import { type Origin, proxySite, startOrigin, viaProxy } from '../../support/proxy.ts';

const HOST = 'shop.proxy-shutdown.example';

/**
 * The real server process (`main.ts`) gets SIGTERM while proxied requests keep coming: every request the
 * origin answered through it is recorded, although its record was still waiting in the process (records go
 * in batches every half second) when the signal came. On a database of its own, as the other SIGTERM test.
 */
describe('proxy mode: SIGTERM while requests are proxied', () => {
  let origin: Origin | undefined;
  const own = ownServerSuite(
    'proxy-sigterm',
    async (t) => {
      origin = await startOrigin();
      return (await proxySite(t, HOST, origin.url, { mode: 'challenge' })).siteId;
    },
    async () => origin?.close(),
  );

  it('records every request answered before it exits 0', async () => {
    const s = await spawnServer({
      NODE_ENV: 'production',
      DATABASE_URL: own.db.url,
      DATA_DIR: own.dataDir,
      LOG_LEVEL: 'info',
      // The origin is a stand-in on 127.0.0.1.
      PROXY_PRIVATE_ORIGINS: 'true',
    });
    own.server = s;
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
    const rows = (await own.orm.em
      .fork()
      .execute('select path, status, decision from requests where site_id = ?', [own.made])) as {
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
