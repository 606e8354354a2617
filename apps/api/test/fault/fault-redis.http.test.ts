import { randomUUID } from 'node:crypto';
import { pageviewRow } from '@us/db';
import type { Response } from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisIngestBuffer, startIngest } from '../../src/analytics/ingest/index.ts';
import { tagKeyOf, tagOf } from '../../src/core/hot/address-tag.ts';
import type { RedisTarget } from '../../src/core/hot/index.ts';
import { throttleKeys } from '../../src/features/auth/throttle.ts';
import { type CollectSite, collectSite } from '../support/collect.ts';
import {
  answered,
  startOwnRedis,
  startOwnRedisCluster,
  storedCounts,
  streamReports,
  tally,
  waitUntilFlowing,
  waitUntilStored,
  waitWhileStreaming,
} from '../support/faults.ts';
import { createUser, describeEachShared, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 8, "test it by stopping the real thing": the redis-server holding the hot state and the write
 * buffer is killed (SIGKILL) while page reports stream in, then started again on its append-only file.
 * Reports keep being answered 202 (the buffer falls back to the process), a route that needs the hot
 * store answers 503 with Retry-After (never 500), and every acknowledged report is stored exactly once.
 * The same holds when it stops answering with its connections open (SIGSTOP: a paused process, a network
 * partition without resets), where no error ever comes back on its own.
 *
 * Issue 39: the same faults on a Redis Cluster (three masters, a replica each), to the master holding this
 * client's sign-in counter and the server's page-report queue. There its replica takes over within seconds:
 * sign-in may wait for it rather than answer 503, works again while the old master is still down, and the old
 * master rejoins as a replica when started again.
 */
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

/** The suite's APP_SECRET: the key its server tags client addresses with in hot-state keys derives from it. */
const APP_SECRET = `fault-redis-${randomUUID()}`;
/** The hot-state key sign-in counts this client's attempts under (supertest connects from 127.0.0.1). */
const signInCounter = () => throttleKeys.loginByAddress(tagOf(tagKeyOf(APP_SECRET), 'address\n127.0.0.1'));

/** What the faults stop, and the server's keys placed on it. */
interface RedisUnderFault {
  target: RedisTarget;
  hotPrefix: string;
  ingestKey: string;
  /** SIGKILL: the redis-server, or the master holding the sign-in counter and the queue. */
  kill(): Promise<void>;
  /** Cluster: waits until the stopped master's replica serves its slots (the old master still down). */
  takenOver?(): Promise<void>;
  /** Brings the killed one back: the server on its append-only file; the old master, as a replica now. */
  start(): Promise<void>;
  /** SIGSTOP (the master holding the keys now), and SIGCONT. */
  pause(): Promise<void>;
  resume(): void;
  remove(): Promise<void>;
}

async function ownRedisServer(): Promise<RedisUnderFault> {
  const redis = await startOwnRedis();
  return {
    target: redis.url,
    hotPrefix: `us:test-${randomUUID()}:`,
    ingestKey: `ingest-${randomUUID()}`,
    kill: () => redis.kill('SIGKILL'),
    start: () => redis.start(),
    pause: async () => redis.pause(),
    resume: () => redis.resume(),
    remove: () => redis.remove(),
  };
}

async function ownRedisCluster(): Promise<RedisUnderFault> {
  const cluster = await startOwnRedisCluster();
  const hotPrefix = `us:test-${randomUUID()}:`;
  const counter = `${hotPrefix}${signInCounter()}`;
  // A queue name whose slot the same master serves: one master stopped takes both away.
  const master = await cluster.masterOf(counter);
  let ingestKey = '';
  for (let i = 0; i < 100 && !ingestKey; i++) {
    const key = `ingest-${randomUUID()}`;
    if ((await cluster.masterOf(`us:${key}:pageviews`)) === master) ingestKey = key;
  }
  let stopped = 0;
  let paused = 0;
  return {
    target: { cluster: cluster.nodes },
    hotPrefix,
    ingestKey,
    async kill() {
      stopped = await cluster.masterOf(counter);
      await cluster.stopNode(stopped, 'SIGKILL');
    },
    takenOver: () => cluster.waitUntilServing(),
    async start() {
      await cluster.waitUntilServing();
      await cluster.startNode(stopped);
      await cluster.waitUntilServing();
    },
    async pause() {
      paused = await cluster.masterOf(counter);
      cluster.pauseNode(paused);
    },
    resume: () => cluster.resumeNode(paused),
    remove: () => cluster.stop(),
  };
}

/** A route that needs the hot store while part of it is gone: 503 with Retry-After, never 500 (or, on a cluster, 200 once a replica took over). */
function expectRefusedOrServed(login: Response, kind: string) {
  if (kind === 'redis-cluster' && login.status === 200) return;
  expect(login.status).toBe(503);
  expect(login.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(login.headers['retry-after'])).toBeGreaterThan(0);
}

describeEachShared()('fault: Redis is killed, or hangs, during ingest (%s)', (kind) => {
  let redis: RedisUnderFault;
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    redis = kind === 'redis' ? await ownRedisServer() : await ownRedisCluster();
    t = await startTestServer({
      appSecret: APP_SECRET,
      redis: redis.target,
      hotPrefix: redis.hotPrefix,
      ingestKey: redis.ingestKey,
      mail: 'outbox',
      env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
      // A batch whose TAKE answer was lost when Redis died sits in processing until reclaimed (two
      // minutes in production): here after a few seconds, so the test need not wait that long.
      ingest: { backoffMs: 100, maxBackoffMs: 500, reclaimEveryMs: 1000, staleAfterMs: 4000 },
    });
    site = await collectSite(t, 'fault-redis.example');
  });
  /** Redis is back: the server's hot store answers again, and reports flow through it into PostgreSQL. */
  async function reconnected(siteId: string, stream: Parameters<typeof waitUntilFlowing>[2]) {
    await waitWhileStreaming(stream, () => t.deps.hot.ping());
    await waitUntilFlowing(t.deps.orm, siteId, stream, stream.log.acked.length);
  }

  afterAll(async () => {
    redis?.resume();
    await t?.close();
    await redis?.remove();
  });

  it('answers reports 202 and other routes 503 while Redis is gone, and stores every acknowledged report once', {
    timeout: 120_000,
  }, async () => {
    const { email, password } = await createUser(t.deps);
    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
    // Sign-in counted this client under the key the fault takes away.
    expect(await t.deps.hot.ttl(signInCounter())).toBeGreaterThan(0);

    const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
    await waitUntilFlowing(t.deps.orm, site.siteId, stream, 0);
    await redis.kill();
    const killed = Date.now();
    const ackedBeforeKill = stream.log.acked.length;
    // A route that needs the hot store (sign-in counts attempts there first) says so: 503, never 500.
    expectRefusedOrServed(await t.request.post('/v1/auth/login').send({ email, password }), kind);
    // Reports go on through the outage, and the flusher stores them from the process's fallback meanwhile.
    await waitWhileStreaming(stream, () => expect(answered(stream.log, 202, killed)).toBeGreaterThan(50));
    await waitUntilFlowing(t.deps.orm, site.siteId, stream, ackedBeforeKill);
    if (redis.takenOver) {
      // The replica took over: sign-in works and the node is ready again, with the old master still down.
      await redis.takenOver();
      await waitWhileStreaming(stream, async () => {
        await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
        await t.request.get('/readyz').expect(200);
      });
    }
    const back = Date.now();
    await redis.start();
    await reconnected(site.siteId, stream);
    const log = await stream.stop();

    expect(log.violations).toEqual([]);
    const outage = tally(log, killed, back);
    expect(Object.keys(outage)).toEqual(['202']);
    expect(outage['202']).toBeGreaterThan(50);
    expect(Object.keys(tally(log))).toEqual(['202']);

    const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, site.siteId);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);

    // Redis is back: sign-in works again.
    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
  });

  it('a push Redis ran but whose answer was lost (killed mid-reply) is stored once, not twice', async () => {
    const buffer = new RedisIngestBuffer(redis.target, `ingest-${randomUUID()}`);
    // What SIGKILL between the append-only write and the reply does: the rows are in Redis, the caller sees an error.
    // (On a cluster, pushes go through the part that also asks a replica to confirm them.)
    type Evaluating = { eval: (...a: unknown[]) => Promise<unknown> };
    const parts = buffer as unknown as { redis: Evaluating; replicated?: Evaluating };
    const inner = parts.replicated ?? parts.redis;
    const run = inner.eval.bind(inner);
    let lose = false;
    inner.eval = async (...args: unknown[]) => {
      const answer = await run(...args);
      if (lose) {
        lose = false;
        throw new Error('Connection is closed.');
      }
      return answer;
    };
    const ingest = await startIngest({ orm: t.deps.orm, buffer, intervalMs: 60_000 });
    lose = true;
    const at = new Date();
    const row = pageviewRow(site.siteId, at, { pageviewId: `lost-${randomUUID().slice(0, 8)}`, visitor: 'v' });
    await ingest.enqueue('pageviews', row);
    expect(lose).toBe(false);
    await ingest.flushNow(); // the fallback's copy
    await ingest.flushNow(); // Redis's copy
    expect(await buffer.size('pageviews')).toBe(0);
    expect((await storedCounts(t.deps.orm, site.siteId)).get(row.pageviewId)).toBe(1);
    await ingest.stop();
    await buffer.close();
  });

  // Its waits are each bounded; together, on a loaded machine, they can pass the default 30 s.
  it('answers reports 202 and sign-in 503 while Redis hangs, and stores every acknowledged report once', {
    timeout: 120_000,
  }, async () => {
    // A site of its own: the first test's reports are stored under the other one.
    const hangSite = await collectSite(t, 'fault-redis-hang.example');
    const { email, password } = await createUser(t.deps);
    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);

    const stream = streamReports({ baseUrl: () => t.url, site: hangSite, loops: 4 });
    await waitUntilFlowing(t.deps.orm, hangSite.siteId, stream, 0);
    await redis.pause();
    const paused = Date.now();
    // A route that needs the hot store (sign-in counts attempts there first) says so instead of waiting.
    const loginStarted = Date.now();
    expectRefusedOrServed(await t.request.post('/v1/auth/login').send({ email, password }), kind);
    expect(Date.now() - loginStarted).toBeLessThan(5000);
    // The hang lasts until reports flowed at their usual pace for a while past any first timeout (2 s in).
    await waitWhileStreaming(stream, () => expect(answered(stream.log, 202, paused + 2000)).toBeGreaterThan(50));
    const resumed = Date.now();
    redis.resume();
    await reconnected(hangSite.siteId, stream);
    const log = await stream.stop();

    expect(log.violations).toEqual([]);
    // The second half of the pause: past any first timeout, reports flow at their usual pace.
    const hanging = tally(log, paused + 2000, resumed);
    expect(Object.keys(hanging)).toEqual(['202']);
    expect(hanging['202']).toBeGreaterThan(50);
    expect(Object.keys(tally(log))).toEqual(['202']);

    const missing = await waitUntilStored(t.deps.orm, hangSite.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, hangSite.siteId);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);

    await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
  });
});
