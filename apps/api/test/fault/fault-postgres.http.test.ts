import { randomUUID } from 'node:crypto';
import { createOrm, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BufferFull } from '../../src/analytics/ingest/index.ts';
import { type CollectSite, collectSite } from '../support/collect.ts';
import {
  answered,
  type OwnPostgres,
  recordingLogger,
  startOwnPostgres,
  storedCounts,
  streamReports,
  tally,
  waitFor,
  waitUntilFlowing,
  waitUntilStored,
  waitWhileStreaming,
} from '../support/faults.ts';
import { hotKinds, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 8, "test it by stopping the real thing": the server's own PostgreSQL is stopped while page
 * reports stream in, and started again. Collect keeps answering 202 from its caches and buffer; once
 * PostgreSQL is back, every acknowledged report is stored, once. With the in-process buffer, and with
 * the Redis one (the suite's redis-server, which stays up) when the machine has redis-server.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_BUDGETS = { COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '10000000', COLLECT_REPORTS_PER_SITE_PER_MINUTE: '10000000' };

describe.each(hotKinds())('fault: PostgreSQL stops and starts while reports stream in (%s buffer)', (kind) => {
  let pg: OwnPostgres;
  let t: TestServer;
  let site: CollectSite;
  /** What the ingest said: its failed flushes are how the test knows the outage was met. */
  const ingestLog = recordingLogger();

  beforeAll(async () => {
    pg = await startOwnPostgres();
    t = await startTestServer({
      databaseUrl: pg.url,
      hot: kind,
      mail: 'outbox',
      env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
      ingest: { backoffMs: 100, maxBackoffMs: 500, logger: ingestLog },
    });
    site = await collectSite(t, 'fault-postgres.example');
  });
  afterAll(async () => {
    await t?.close();
    await pg?.remove();
  });

  it('answers 202 throughout and stores every acknowledged report once PostgreSQL is back', async () => {
    const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
    await waitUntilFlowing(t.deps.orm, site.siteId, stream, 0);
    const down = Date.now();
    await pg.stop();
    const stopped = Date.now();
    // The outage lasts until reports kept coming through it and the flusher has failed on it at least once.
    const linesBefore = ingestLog.lines.length;
    await waitWhileStreaming(stream, () => {
      expect(answered(stream.log, 202, stopped)).toBeGreaterThan(50);
      expect(ingestLog.lines.slice(linesBefore).join('\n')).toContain('ingest flush failed');
    });
    const up = Date.now();
    await pg.start();
    // PostgreSQL is back: the flusher stores new reports again on its own.
    await waitUntilFlowing(t.deps.orm, site.siteId, stream, stream.log.acked.length);
    const log = await stream.stop();

    expect(log.violations).toEqual([]);
    // While PostgreSQL was down, collect answered from its caches and buffer: 202, nothing else.
    const outage = tally(log, stopped, up);
    expect(Object.keys(outage)).toEqual(['202']);
    expect(outage['202']).toBeGreaterThan(50);
    const others = log.answers.filter((a) => a.status !== 202);
    expect(
      Object.keys(tally(log)),
      others.map((a) => `${a.status} ${a.at - down} ms after the stop: ${a.title ?? a.error}`).join('; '),
    ).toEqual(['202']);
    expect(Object.keys(tally(log, down, stopped)).every((k) => k === '202')).toBe(true);

    const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, site.siteId);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);
  });
});

describe('fault: PostgreSQL down long enough for the buffer to fill up', () => {
  let pg: OwnPostgres;
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    pg = await startOwnPostgres();
    t = await startTestServer({
      databaseUrl: pg.url,
      hot: 'memory',
      mail: 'outbox',
      env: { ...NO_BUDGETS, LOG_LEVEL: 'silent' },
      ingest: { backoffMs: 100, maxBackoffMs: 500, maxBufferRows: 1000 },
    });
    site = await collectSite(t, 'fault-postgres-full.example');
  });
  afterAll(async () => {
    await t?.close();
    await pg?.remove();
  });

  it('turns reports away with 503 and Retry-After once full, and stores every 202 once PostgreSQL is back', async () => {
    const stream = streamReports({ baseUrl: () => t.url, site, loops: 4 });
    await waitUntilFlowing(t.deps.orm, site.siteId, stream, 0);
    await pg.stop();
    // Most of the buffer taken at once (rows of another site), so the stream fills the rest quickly.
    const other = randomUUID();
    const fillers: string[] = [];
    for (let i = 0; i < 16; i++) {
      const rows = pageviewRows(other, new Date(), 50, (j) => ({ pageviewId: `filler-${i}-${j}`, visitor: 'v' }));
      const queued = await t.deps.ingest.enqueueMany('pageviews', rows).then(
        () => true,
        (e) => (e instanceof BufferFull ? false : Promise.reject(e)),
      );
      if (!queued) break;
      fillers.push(...rows.map((r) => r.pageviewId));
    }
    expect(await waitFor(() => stream.log.answers.some((a) => a.status === 503), 15_000)).toBe(true);
    const full = Date.now();
    // Full for a while: reports keep being turned away until PostgreSQL is back.
    await waitWhileStreaming(stream, () => expect(answered(stream.log, 503, full)).toBeGreaterThan(10));
    await pg.start();
    const up = Date.now();
    // Once the backlog is stored there is room again: reports are answered 202 again.
    const again = await waitFor(() => answered(stream.log, 202, up) > 10, 20_000);
    const log = await stream.stop();
    expect(again).toBe(true);

    expect(log.violations).toEqual([]);
    // Reports sent once the buffer was full are turned away; a few may be let in while a failing flush has a batch
    // out of the buffer (it goes back after): those are 202s, stored below like every other.
    const whileFull = tally(log, full, up, 'sent');
    expect(whileFull['503']).toBeGreaterThan(10);
    expect(whileFull['202'] ?? 0).toBeLessThan(whileFull['503'] ?? 0);
    expect(Object.keys(tally(log)).sort()).toEqual(['202', '503']);

    const missing = await waitUntilStored(t.deps.orm, site.siteId, log.acked, 30_000);
    expect(missing).toEqual([]);
    const counts = await storedCounts(t.deps.orm, site.siteId);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(counts.size).toBe(log.acked.length);
    // On a loaded machine the stream may fill the buffer while PostgreSQL stops, before any filler: then none
    // was accepted, and none may be stored.
    expect((await storedCounts(t.deps.orm, other)).size).toBe(fillers.length);
  });
});

describe('fault: PostgreSQL stops in the middle of a transaction', () => {
  it('the transaction fails and its connection goes back to the pool: queries work once PostgreSQL is back', async () => {
    const pg = await startOwnPostgres();
    const orm = await createOrm(pg.url, { poolMax: 1 });
    try {
      let entered!: () => void;
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      let go!: () => void;
      const gate = new Promise<void>((r) => {
        go = r;
      });
      const trx = orm.em
        .fork()
        .transactional(async (em) => {
          await em.execute('select 1');
          entered();
          await gate;
          await em.execute('select 1');
        })
        .then(
          () => 'committed',
          () => 'failed',
        );
      await inside;
      await pg.stop();
      go();
      expect(await trx).toBe('failed');
      await pg.start();
      // A pool of one connection: had the failed transaction kept it, this would wait for ever.
      const answer = await Promise.race([orm.em.fork().execute('select 1 as one'), sleep(10_000).then(() => 'waited 10 s')]);
      expect(answer).toEqual([{ one: 1 }]);
    } finally {
      await Promise.race([orm.close(), sleep(5000)]);
      await pg.remove();
    }
  });
});
