// The real server process (`main.ts`) started while its Redis is down, as after a restart during a Redis
// outage (a deploy, a crash, the out-of-memory killer). It starts, says why it runs without Redis, and serves as
// it does through any Redis outage (docs/operations/deploy.md, "When PostgreSQL or Redis is down"): page reports
// 202 from the process's buffer, routes that need the hot state 503 with Retry-After. Once Redis is up, sign-in
// works again and every acknowledged report is stored once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite } from '../support/collect.ts';
import {
  type OwnRedis,
  type StreamLog,
  sendReport,
  spawnServer,
  startOwnRedis,
  storedCounts,
  waitFor,
  waitUntilStored,
} from '../support/faults.ts';
import { ownServerSuite } from '../support/own-server.ts';
import { createUser } from '../support/server.ts';

const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe('fault: the server started while Redis is down', () => {
  const own = ownServerSuite('fault-redis-at-start', async (t) => ({
    site: await collectSite(t, 'redis-at-start.example'),
    user: await createUser(t.deps),
  }));
  let redis: OwnRedis;
  beforeAll(async () => {
    // Its port known and nothing listening there: a Redis that is down.
    redis = await startOwnRedis();
    await redis.kill();
  });
  afterAll(async () => {
    await redis?.remove();
  });

  const signIn = (url: string) =>
    fetch(`${url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: own.made.user.email, password: own.made.user.password }),
    });

  it('starts, answers reports 202 and sign-in 503, and once Redis is up signs in and stores every report once', {
    timeout: 180_000,
  }, async () => {
    const site: CollectSite = own.made.site;
    const server = await spawnServer(
      { DATABASE_URL: own.db.url, DATA_DIR: own.dataDir, REDIS_URL: redis.url, LOG_LEVEL: 'info', ...NO_BUDGETS },
      120_000,
    );
    own.server = server;
    expect(server.output()).toContain('ingest: Redis is not reachable at start-up');
    expect(server.output()).not.toMatch(/\n\s+at /);

    const log: StreamLog = { acked: [], answers: [], violations: [] };
    expect(await sendReport(server.url, site, 'redis-down-1', log)).toMatchObject({ status: 202 });
    const refused = await signIn(server.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    await redis.start();
    expect(await waitFor(async () => (await signIn(server.url)).status === 200, 60_000)).toBe(true);
    expect(await sendReport(server.url, site, 'redis-up-1', log)).toMatchObject({ status: 202 });
    expect(log.violations).toEqual([]);
    expect(await waitUntilStored(own.orm, site.siteId, log.acked, 30_000)).toEqual([]);
    const counts = await storedCounts(own.orm, site.siteId);
    expect(Object.fromEntries(counts)).toEqual({ 'redis-down-1': 1, 'redis-up-1': 1 });

    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
