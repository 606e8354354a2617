import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite } from './support/collect.ts';
import { type OwnRedis, startOwnRedis, storedCounts, streamReports, tally, waitUntilStored } from './support/faults.ts';
import { createUser, startTestServer, type TestServer } from './support/server.ts';

/**
 * A Redis that stops answering without closing its connections (a paused process, a network partition
 * with no reset): no error ever comes back on its own. Page reports must still be answered 202 within
 * moments (the write buffer falls back to the process), a route that needs the hot store must answer
 * 503 rather than hang, and every acknowledged report is stored exactly once after Redis comes back.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe('fault: Redis stops answering during ingest', () => {
  let redis: OwnRedis;
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await startTestServer({
      redisUrl: redis.url,
      mail: 'outbox',
      env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
      ingest: { backoffMs: 100, maxBackoffMs: 500, reclaimEveryMs: 1000, staleAfterMs: 4000 },
    });
    site = await collectSite(t, 'fault-redis-hang.example');
  });
  afterAll(async () => {
    redis?.resume();
    await t?.close();
    await redis?.remove();
  });

  it('answers reports 202 and sign-in 503 while Redis hangs, and stores every acknowledged report once', async () => {
    const { email, password } = await createUser(t.deps);
    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);

    const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
    await sleep(1500);
    redis.pause();
    const paused = Date.now();
    // A route that needs the hot store (sign-in counts attempts there first) says so instead of waiting.
    const loginStarted = Date.now();
    const login = await t.request.post('/v1/auth/login').send({ email, password });
    expect(login.status).toBe(503);
    expect(Number(login.headers['retry-after'])).toBeGreaterThan(0);
    expect(Date.now() - loginStarted).toBeLessThan(5000);
    await sleep(Math.max(0, 4000 - (Date.now() - paused)));
    const resumed = Date.now();
    redis.resume();
    await sleep(1500);
    const log = await stream.stop();

    expect(log.violations).toEqual([]);
    // The second half of the pause: past any first timeout, reports flow at their usual pace.
    const hanging = tally(log, paused + 2000, resumed);
    expect(Object.keys(hanging)).toEqual(['202']);
    expect(hanging['202']).toBeGreaterThan(50);
    expect(Object.keys(tally(log))).toEqual(['202']);

    const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, site.siteId);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);

    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
  });
});
