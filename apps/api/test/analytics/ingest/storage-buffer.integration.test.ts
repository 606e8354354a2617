import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm, eventRow, insertRows, type Orm, pageviewRow } from '@us/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withId } from '../../../src/analytics/ingest/buffer.ts';
import {
  type AnalyticsRows,
  type AnalyticsTable,
  BufferFull,
  type IngestBuffer,
  MemoryIngestBuffer,
  RedisIngestBuffer,
  startIngest,
} from '../../../src/analytics/ingest/index.ts';
import { readSpills, spillRows } from '../../../src/analytics/ingest/spill.ts';
import type { Logger } from '../../../src/core/logger.ts';
import { proxyRecorder } from '../../../src/faces/proxy/recording.ts';
import { describeEachShared, type HotKind, hotKinds, redisTargetOf } from '../../support/server.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
});
afterAll(async () => {
  await orm?.close();
});

function makeBuffer(kind: HotKind, prefix = `ingest-test-${randomUUID()}`): IngestBuffer {
  if (kind === 'memory') return new MemoryIngestBuffer();
  return new RedisIngestBuffer(redisTargetOf(kind), prefix);
}

/** The buffer's kinds on this machine, the run's Redis Cluster included: its scripts keep each step in one slot. */
const bufferKinds = hotKinds({ cluster: true });

/** The i-th page (`/p{i}`) of one visit; no row id, as collected: the buffer gives one. */
const pageview = (siteId: string, i: number) =>
  pageviewRow(siteId, new Date(), { pageviewId: `pv${i}`, visitor: 'v', sessionStart: i === 0, path: `/p${i}` });

async function counts(site: string) {
  const rows = await orm.em
    .getConnection()
    .execute<{ path: string; n: string }[]>(
      `select path, count(*) as n from pageviews where site_id = ? group by path order by path`,
      [site],
      'all',
    );
  return rows;
}

describe.each(bufferKinds)('ingest buffer (%s)', (kind) => {
  it('lands enqueued rows after flushNow', async () => {
    const buffer = makeBuffer(kind);
    const ingest = await startIngest({ orm, buffer, intervalMs: 60_000 });
    const site = randomUUID();
    for (let i = 0; i < 5; i++) await ingest.enqueue('pageviews', pageview(site, i));
    await ingest.enqueue('events', eventRow(site, new Date(), { pageviewId: 'pv0', visitor: 'v', path: '/p0', name: 'click' }));
    expect(await buffer.size('pageviews')).toBe(5);
    const res = await ingest.flushNow();
    expect(res).toEqual({ inserted: 6, deadLettered: 0 });
    expect((await counts(site)).length).toBe(5);
    expect(await buffer.size('pageviews')).toBe(0);
    await ingest.stop();
    await buffer.close();
  });

  it('flushes on its own once a full batch waits', async () => {
    const buffer = makeBuffer(kind);
    const ingest = await startIngest({ orm, buffer, intervalMs: 60_000, batchSize: 10 });
    const site = randomUUID();
    for (let i = 0; i < 10; i++) await ingest.enqueue('pageviews', pageview(site, i));
    await expect.poll(async () => (await counts(site)).length, { timeout: 5000 }).toBe(10);
    await ingest.stop();
    await buffer.close();
  });

  it('under a steady stream of rows, starts early flushes at most every minGapMs, so batches grow instead', async () => {
    const buffer = makeBuffer(kind);
    const starts: number[] = [];
    const sizes: number[] = [];
    const insert = async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => {
      starts.push(performance.now());
      sizes.push(rows.length);
      return insertRows(orm, table, rows);
    };
    const ingest = await startIngest({ orm, buffer, insert, intervalMs: 60_000, batchSize: 10, insertSize: 5000, minGapMs: 100 });
    const site = randomUUID();
    // 10 rows every 5 ms for 500 ms or more: a full batch waits at every step. The stream's pace is the point,
    // so these are real pauses; the bound on flushes follows the time the stream really took.
    let n = 0;
    const began = performance.now();
    for (let step = 0; step < 100; step++) {
      await ingest.enqueueMany(
        'pageviews',
        Array.from({ length: 10 }, () => pageview(site, n++)),
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    const lasted = performance.now() - began;
    await ingest.flushNow();
    const early = starts.slice(0, -1);
    expect(early.length).toBeGreaterThan(1);
    expect(early.length).toBeLessThanOrEqual(Math.ceil(lasted / 100) + 2);
    // Measured at the insert, after each flush has read its batch (a Redis round trip): on a loaded CI
    // machine the reads' jitter moves single gaps well below minGapMs (56 ms seen), so the typical gap is
    // what is held. Without the gap, flushes would start every 5 ms.
    const gaps = early
      .slice(1)
      .map((t, i) => t - (early[i] as number))
      .sort((a, b) => a - b);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThanOrEqual(90);
    expect(Math.max(...sizes)).toBeGreaterThan(10);
    expect((await counts(site)).length).toBe(1000);
    await ingest.stop();
    await buffer.close();
  });

  it('keeps the rows when an insert fails and lands each exactly once on the retry', async () => {
    const buffer = makeBuffer(kind);
    let calls = 0;
    // First attempt: the rows commit but the answer is "lost" (throws after commit); second: a real failure
    // before anything is written; third: normal. Every row must end up stored exactly once.
    const insert = async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => {
      calls += 1;
      if (calls === 1) {
        await insertRows(orm, table, rows);
        throw new Error('connection lost after commit');
      }
      if (calls === 2) throw new Error('database down');
      return insertRows(orm, table, rows);
    };
    const ingest = await startIngest({ orm, buffer, insert, intervalMs: 60_000, backoffMs: 10 });
    const site = randomUUID();
    for (let i = 0; i < 4; i++) await ingest.enqueue('pageviews', pageview(site, i));
    const first = await ingest.flushNow();
    expect(first.error).toBeInstanceOf(Error);
    expect(await buffer.size('pageviews')).toBe(4);
    const second = await ingest.flushNow();
    expect(String(second.error)).toContain('database down');
    expect(await buffer.size('pageviews')).toBe(4);
    const third = await ingest.flushNow();
    expect(third.error).toBeUndefined();
    expect(third.inserted).toBe(0); // already committed by the first attempt: the retry is a no-op
    expect(await buffer.size('pageviews')).toBe(0);
    expect(await counts(site)).toEqual([0, 1, 2, 3].map((i) => ({ path: `/p${i}`, n: '1' })));
    await ingest.stop();
    await buffer.close();
  });

  it('drains a backlog two inserts at a time; a failed one puts back only its own rows; each row stored once', async () => {
    const buffer = makeBuffer(kind);
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    // The first insert waits until a second one runs beside it (or 5 s, and `most` says it never did).
    let bothRunning: () => void = () => {};
    const second = new Promise<void>((r) => {
      bothRunning = r;
    });
    const insert = async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => {
      const call = ++calls;
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (inFlight === 2) bothRunning();
      try {
        if (call === 1) await Promise.race([second, new Promise((r) => setTimeout(r, 5000).unref())]);
        if (call === 2) throw new Error('database down');
        return await insertRows(orm, table, rows);
      } finally {
        inFlight -= 1;
      }
    };
    // batchSize 10: inserts of 10 rows; 60 rows waiting make a backlog of six batches.
    const ingest = await startIngest({ orm, buffer, insert, intervalMs: 60_000, batchSize: 10, backoffMs: 10 });
    const site = randomUUID();
    // Straight into the buffer, as a backlog left by a slow database: no early flush starts meanwhile.
    await buffer.enqueue(
      'pageviews',
      Array.from({ length: 60 }, (_, i) => pageview(site, i)),
    );
    const first = await ingest.flushNow();
    expect(String(first.error)).toContain('database down');
    expect(most).toBe(2);
    // The other loop went on draining, the failed batch's rows included (put back at the front).
    expect(await buffer.size('pageviews')).toBe(0);
    expect((await counts(site)).length).toBe(60);
    const stored = await counts(site);
    expect(stored).toHaveLength(60);
    expect(stored.every((r) => r.n === '1')).toBe(true);
    await ingest.stop();
    await buffer.close();
  });

  it('retries by itself with backoff after a failure', async () => {
    const buffer = makeBuffer(kind);
    let calls = 0;
    const insert = async <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return insertRows(orm, table, rows);
    };
    const ingest = await startIngest({ orm, buffer, insert, intervalMs: 20, backoffMs: 50 });
    const site = randomUUID();
    for (let i = 0; i < 3; i++) await ingest.enqueue('pageviews', pageview(site, i));
    await expect.poll(async () => (await counts(site)).length, { timeout: 5000 }).toBe(3);
    expect(calls).toBeGreaterThanOrEqual(2);
    await ingest.stop();
    expect((await counts(site)).every((r) => r.n === '1')).toBe(true);
    await buffer.close();
  });
});

describe('room held in the in-process buffer (rows queued after the answer)', () => {
  it('counts held room against the maximum, so rows queued through it never meet BufferFull', async () => {
    const buffer = new MemoryIngestBuffer(25);
    const room = buffer.holdRoom(21);
    const site = randomUUID();
    // 21 of 25 promised: a plain enqueue of 5 more is refused, one of 4 is taken.
    await expect(
      buffer.enqueue(
        'pageviews',
        [0, 1, 2, 3, 4].map((i) => pageview(site, i)),
      ),
    ).rejects.toBeInstanceOf(BufferFull);
    await buffer.enqueue(
      'pageviews',
      [0, 1, 2, 3].map((i) => pageview(site, i)),
    );
    expect(() => buffer.holdRoom(1)).toThrow(BufferFull);
    room.enqueue('pageviews', [pageview(site, 10)]);
    room.release();
    // The 20 rows the room did not use are free again.
    expect(await buffer.size('pageviews')).toBe(5);
    await buffer.enqueue(
      'pageviews',
      Array.from({ length: 20 }, (_, i) => pageview(site, 20 + i)),
    );
    expect(() => buffer.holdRoom(1)).toThrow(BufferFull);
  });

  // The fault: only rows were counted. During an outage 200,000 rows of 30 properties of 256 characters each (~2 GB
  // of heap) fit the maximum, more than the machine has: the process died with every row it had answered for.
  it('counts the rows’ size too: past its bytes it refuses new rows and room, and takes them again once stored', async () => {
    const buffer = new MemoryIngestBuffer(200_000, 1_000_000);
    const site = randomUUID();
    const props = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, 'v'.repeat(256)]));
    const fat = (i: number) => ({ ...pageview(site, i), props });
    /** Rows queued one at a time until the buffer refuses one (BufferFull). */
    const fill = async () => {
      let n = 0;
      await expect(
        (async () => {
          for (;;) {
            await buffer.enqueue('pageviews', [fat(n)]);
            n++;
          }
        })(),
      ).rejects.toBeInstanceOf(BufferFull);
      return n;
    };
    const queued = await fill();
    // ~7.7 KB of text a row: about 130 fit in 1 MB.
    expect(queued).toBeGreaterThan(100);
    expect(queued).toBeLessThan(140);
    // Room for a report not built yet is refused once the rows held reach the bytes (its rows may pass them).
    const room = buffer.holdRoom(1);
    room.enqueue('pageviews', [fat(500)]);
    room.release();
    expect(() => buffer.holdRoom(1)).toThrow(BufferFull);
    const batch = await buffer.take('pageviews', 50);
    await batch?.ack();
    expect(() => buffer.holdRoom(1).release()).not.toThrow();
    await buffer.enqueue('pageviews', [fat(1_000)]);
    // Everything stored, the rows changed on the way (the insert cleans them in place): the buffer takes as much again.
    for (let b = await buffer.take('pageviews', 1_000); b; b = await buffer.take('pageviews', 1_000)) {
      for (const row of b.rows) (row as { props: unknown }).props = null;
      await b.ack();
    }
    expect(await fill()).toBe(queued);
  });

  it('makes flushNow wait for the rooms open when it was asked, then stores their rows', async () => {
    const ingest = await startIngest({ orm, buffer: new MemoryIngestBuffer(), intervalMs: 60_000 });
    const site = randomUUID();
    const room = ingest.holdRoom(2);
    if (!room) throw new Error('the in-process buffer holds room');
    let flushed = false;
    const flush = ingest.flushNow().then((r) => {
      flushed = true;
      return r;
    });
    // A room opened after the flush was asked for does not hold it up (a steady stream never would end).
    const later = ingest.holdRoom(1);
    // Everything the flush could do without waiting for the room is promise work on the in-process buffer
    // (nothing is stored yet): one turn of the event loop runs all of it.
    await new Promise((r) => setImmediate(r));
    expect(flushed).toBe(false);
    room.enqueueMany('pageviews', [pageview(site, 0), pageview(site, 1)]);
    room.release();
    expect(await flush).toEqual({ inserted: 2, deadLettered: 0 });
    expect((await counts(site)).length).toBe(2);
    later?.release();
    await ingest.stop();
  });

  it('has no room to hold ahead in Redis', async () => {
    const url = inject('redisUrl');
    if (!url) return;
    const buffer = new RedisIngestBuffer(url, `ingest-test-${randomUUID()}`);
    const ingest = await startIngest({ orm, buffer, intervalMs: 60_000 });
    expect(ingest.holdRoom(1)).toBeNull();
    await ingest.stop();
    await buffer.close();
  });
});

describeEachShared()('redis ingest buffer crash recovery (%s)', (kind) => {
  it('re-queues rows left in processing by a crashed flush and inserts them once', async () => {
    const prefix = `ingest-test-${randomUUID()}`;
    const site = randomUUID();
    // Node A takes a batch, commits half of the story (the insert), and "crashes" before the ack.
    const a = makeBuffer(kind, prefix) as RedisIngestBuffer;
    for (let i = 0; i < 6; i++) await a.enqueue('pageviews', [pageview(site, i)]);
    const batch = await a.take('pageviews', 4);
    expect(batch?.rows.length).toBe(4);
    expect(batch?.rows[0]?.at).toBeInstanceOf(Date);
    await insertRows(orm, 'pageviews', batch?.rows ?? []);
    expect(await a.processingLength('pageviews')).toBe(1);
    await a.close();

    // Node restarts: start-up re-queues the processing list and flushes everything once.
    const b = makeBuffer(kind, prefix) as RedisIngestBuffer;
    const ingest = await startIngest({ orm, buffer: b, intervalMs: 60_000 });
    expect(await b.processingLength('pageviews')).toBe(0);
    expect(await b.size('pageviews')).toBe(6);
    const res = await ingest.flushNow();
    expect(res).toEqual({ inserted: 2, deadLettered: 0 });
    expect(await counts(site)).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ path: `/p${i}`, n: '1' })));
    await ingest.stop();
    await b.close();
  });
});

describeEachShared()('a batch taken from Redis (%s)', (kind) => {
  it('is read back a slice at a time: other work gets turns while 5,000 rows are revived', async () => {
    const buffer = makeBuffer(kind) as RedisIngestBuffer;
    const site = randomUUID();
    await buffer.enqueue(
      'pageviews',
      Array.from({ length: 5000 }, (_, i) => pageview(site, i)),
    );
    // Rows revived (JSON.parse calls) between two turns of the event loop, while the take runs.
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      parsed++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let most = 0;
    let seen = 0;
    let taking = true;
    const tick = () => {
      most = Math.max(most, parsed - seen);
      seen = parsed;
      if (taking) setImmediate(tick);
    };
    setImmediate(tick);
    let batch: Awaited<ReturnType<typeof buffer.take>>;
    try {
      batch = await buffer.take('pageviews', 5000);
    } finally {
      taking = false;
      JSON.parse = parse;
    }
    tick();
    expect(batch?.rows).toHaveLength(5000);
    expect(batch?.rows[4999]).toMatchObject({ path: '/p4999', at: expect.any(Date) });
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(501);
    await batch?.ack();
    await buffer.close();
  });
});

describe.runIf(bufferKinds.includes('redis'))('redis ingest buffer across the upgrade that renamed its processing lists', () => {
  it('takes rows an older version queued, and puts back the batches it left in processing under the old name', async () => {
    const prefix = `ingest-test-${randomUUID()}`;
    const site = randomUUID();
    // What an older node left in Redis: rows in the queue (whose name is unchanged), and a batch it had taken
    // (its flush died) in `us:<prefix>:pageviews:processing`, as that version's TAKE wrote it.
    const raw = new Redis(inject('redisUrl') as string);
    const row = (i: number) => JSON.stringify(withId(pageview(site, i)));
    await raw.lpush(`us:${prefix}:pageviews`, row(0), row(1));
    const taken = JSON.stringify({ id: randomUUID(), at: Date.now() - 60_000, rows: [row(2), row(3), row(4)] });
    await raw.lpush(`us:${prefix}:pageviews:processing`, taken);

    const buffer = makeBuffer('redis', prefix);
    const ingest = await startIngest({ orm, buffer, intervalMs: 60_000 });
    expect(await ingest.flushNow()).toEqual({ inserted: 5, deadLettered: 0 });
    expect(await counts(site)).toEqual([0, 1, 2, 3, 4].map((i) => ({ path: `/p${i}`, n: '1' })));
    expect(await raw.llen(`us:${prefix}:pageviews:processing`)).toBe(0);

    // A node of the older version still running during a rolling upgrade dies mid-flush later: its batch is
    // put back by the newer nodes' periodic reclaim, as one of their own would be.
    await raw.lpush(
      `us:${prefix}:pageviews:processing`,
      JSON.stringify({ id: randomUUID(), at: Date.now() - 600_000, rows: [row(5)] }),
    );
    expect(await buffer.reclaimStale(120_000)).toBe(1);
    await ingest.flushNow();
    expect((await counts(site)).map((r) => r.path)).toContain('/p5');
    await raw.quit();
    await ingest.stop();
    await buffer.close();
  });
});

// The fault: Redis unreachable. Every flush took the in-process fallback's rows, then asked Redis, failed, and was
// taken as a failed flush: flushes backed off up to 10 s while PostgreSQL was fine, and the fallback filled.
describe('ingest buffer on a Redis that does not answer', () => {
  it('holds the rows in the process, and a take past them finds nothing instead of failing', async () => {
    const buffer = new RedisIngestBuffer('redis://127.0.0.1:1', `ingest-test-${randomUUID()}`);
    try {
      const at = new Date();
      await buffer.enqueue('events', [eventRow(randomUUID(), at, { id: randomUUID() })]);
      await buffer.enqueue('events', [eventRow(randomUUID(), at, { id: randomUUID() })]);
      const first = await buffer.take('events', 10);
      expect(first?.rows).toHaveLength(2);
      await first?.ack();
      await expect(buffer.take('events', 10)).resolves.toBeNull();
      await expect(buffer.take('pageviews', 10)).resolves.toBeNull();
    } finally {
      await buffer.close();
    }
  });
});

// The fault: more rows were saved at the last stop than the buffer holds, and the flush that should make room could
// not store (PostgreSQL refusing). The second BufferFull ended the start, and every start after it the same way.
describe('rows saved at the last stop that the buffer cannot take at start', () => {
  it('are queued as far as they fit, the start goes on, and the files stay until every row is stored', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spill-restore-'));
    try {
      const site = randomUUID();
      spillRows(dir, [{ table: 'pageviews', rows: Array.from({ length: 30 }, (_, i) => withId(pageview(site, i))) }]);
      const refusing = async () => {
        throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      };
      const ingest = await startIngest({
        orm,
        buffer: new MemoryIngestBuffer(10),
        insert: refusing,
        spillDir: dir,
        intervalMs: 60_000,
      });
      expect(readdirSync(dir).filter((n) => n.endsWith('.ndjson'))).toHaveLength(1);
      await ingest.stop(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The fault: proxy mode's request records that a full buffer refused waited in the process; at a stop they were
// handed to the same full buffer again, refused again, and lost with the process, though their requests were answered.
describe.each(bufferKinds)('records waiting for a full buffer at a stop (%s)', (kind) => {
  it('are held past its maximum and saved to the spill folder with the rest', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spill-last-'));
    try {
      const site = randomUUID();
      const refusing = async () => {
        throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      };
      const buffer =
        kind === 'memory'
          ? new MemoryIngestBuffer(10)
          : new RedisIngestBuffer(redisTargetOf(kind), `ingest-test-${randomUUID()}`, 10);
      const ingest = await startIngest({ orm, buffer, insert: refusing, spillDir: dir, intervalMs: 60_000 });
      await ingest.enqueueMany(
        'pageviews',
        Array.from({ length: 10 }, (_, i) => pageview(site, i)),
      );
      const quiet = { warn() {}, error() {}, info() {} } as unknown as Logger;
      // A recorder whose records become pageviews of their own path: the buffer is full, so they wait.
      const recorder = proxyRecorder(
        (_site, records) =>
          ingest.enqueueMany(
            'pageviews',
            records.map((_, i) => pageview(site, 100 + i)),
          ),
        quiet,
      );
      for (let i = 0; i < 3; i++) recorder.add({ id: site } as never, { path: `/r${i}` } as never);
      await recorder.flush();
      await expect(ingest.enqueueMany('pageviews', [pageview(site, 99)])).rejects.toBeInstanceOf(BufferFull);

      await ingest.stop(2_000, () => recorder.flush());
      const saved = readSpills(dir).rows.flatMap((r) => r.rows as { path: string }[]);
      const records = ['/p100', '/p101', '/p102'];
      if (kind === 'memory') {
        expect(saved.map((r) => r.path).sort()).toEqual([...Array.from({ length: 10 }, (_, i) => `/p${i}`), ...records].sort());
      } else {
        // Redis keeps what it queued; the process saved what Redis had no room for.
        expect(saved.map((r) => r.path).sort()).toEqual(records);
        expect(await buffer.size('pageviews')).toBe(10);
        await buffer.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
