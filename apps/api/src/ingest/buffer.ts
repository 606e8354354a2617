import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { AnalyticsRows, AnalyticsTable } from '@us/db';

export type { AnalyticsRows, AnalyticsTable };
export const INGEST_TABLES: readonly AnalyticsTable[] = ['pageviews', 'page_leaves', 'events', 'requests'];

/** A batch taken out of the queue: `ack` after the DB commit, `nack` to put it back for a retry. */
export interface Batch<T extends AnalyticsTable = AnalyticsTable> {
  readonly table: T;
  readonly rows: AnalyticsRows[T][];
  ack(): Promise<void>;
  nack(): Promise<void>;
}

/**
 * The write buffer in front of the raw tables. Two implementations, one contract: in-process (one node)
 * and Redis (shared, survives a crash). Every row gets its `id` at enqueue, so a batch inserted twice
 * (a retry after a commit whose answer was lost, or a crash between commit and ack) is stored once:
 * the primary key (site_id, day, id) with `on conflict do nothing` absorbs the second insert.
 */
export interface IngestBuffer {
  readonly kind: 'memory' | 'redis';
  /** Queues one row; touches only memory or Redis, never the database. */
  enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]): Promise<void>;
  /** Rows waiting (not counting batches being processed). */
  size(table: AnalyticsTable): Promise<number>;
  /** Moves up to `max` of the oldest rows into processing; null when none wait. */
  take<T extends AnalyticsTable>(table: T, max: number): Promise<Batch<T> | null>;
  /** Puts every batch left in processing (by a crashed flush) back at the head of its queue; returns rows moved. */
  recover(): Promise<number>;
  close(): Promise<void>;
}

function withId<R extends { id?: string }>(row: R): R {
  return row.id ? row : { ...row, id: randomUUID() };
}

/** In-process buffer: arrays. Lost on a crash, like any in-process state; one node only. */
export class MemoryIngestBuffer implements IngestBuffer {
  readonly kind = 'memory' as const;
  private readonly queues = new Map<AnalyticsTable, unknown[]>();
  private readonly processing = new Map<number, { table: AnalyticsTable; rows: unknown[] }>();
  private seq = 0;

  private queue(table: AnalyticsTable): unknown[] {
    let q = this.queues.get(table);
    if (!q) {
      q = [];
      this.queues.set(table, q);
    }
    return q;
  }

  async enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]) {
    this.queue(table).push(withId(row));
  }
  async size(table: AnalyticsTable) {
    return this.queue(table).length;
  }
  async take<T extends AnalyticsTable>(table: T, max: number): Promise<Batch<T> | null> {
    const q = this.queue(table);
    if (!q.length) return null;
    const rows = q.splice(0, Math.max(1, max)) as AnalyticsRows[T][];
    const id = ++this.seq;
    this.processing.set(id, { table, rows });
    return {
      table,
      rows,
      ack: async () => {
        this.processing.delete(id);
      },
      nack: async () => {
        if (this.processing.delete(id)) q.unshift(...rows);
      },
    };
  }
  async recover() {
    let n = 0;
    for (const [id, { table, rows }] of this.processing) {
      this.processing.delete(id);
      this.queue(table).unshift(...rows);
      n += rows.length;
    }
    return n;
  }
  async close() {}
}

// Atomically moves up to ARGV[1] of the oldest rows (the tail; enqueue is LPUSH) into the processing
// list as one batch element, like LMOVE but for a whole batch. Returns that element or false.
const TAKE = `local rows = redis.call('RPOP', KEYS[1], tonumber(ARGV[1]))
if not rows then return false end
local batch = cjson.encode({ id = ARGV[2], rows = rows })
redis.call('LPUSH', KEYS[2], batch)
return batch`;

// Removes one batch from processing and puts its rows back at the tail (the next to be taken), in order.
const NACK = `local removed = redis.call('LREM', KEYS[2], 1, ARGV[1])
if removed == 0 then return 0 end
local batch = cjson.decode(ARGV[1])
for i = #batch.rows, 1, -1 do redis.call('RPUSH', KEYS[1], batch.rows[i]) end
return #batch.rows`;

// Re-queues every batch left in processing (oldest batch ends up nearest the tail).
const RECOVER = `local n = 0
while true do
  local b = redis.call('LPOP', KEYS[2])
  if not b then break end
  local batch = cjson.decode(b)
  for i = #batch.rows, 1, -1 do redis.call('RPUSH', KEYS[1], batch.rows[i]) end
  n = n + #batch.rows
end
return n`;

function revive<R>(json: string): R {
  const row = JSON.parse(json) as R & { at: string | Date };
  row.at = new Date(row.at);
  return row;
}

/**
 * Redis buffer: a list per table (`us:ingest:<table>`, LPUSH) and a processing list
 * (`us:ingest:<table>:processing`) holding the batches a flusher has taken and not yet committed.
 * A batch leaves processing only after the DB commit (`ack`); `recover()` at start-up re-queues what a
 * crashed flush left behind. The processing list is shared by every node: run `recover()` only at
 * start-up, where at worst it re-queues another node's in-flight batch, whose second insert is a no-op.
 */
export class RedisIngestBuffer implements IngestBuffer {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'ingest',
  ) {
    this.redis = new Redis(url, { keyPrefix: 'us:', maxRetriesPerRequest: 2, protocol: 2 });
    this.redis.on('error', () => {});
  }

  private keys(table: AnalyticsTable): [string, string] {
    return [`${this.prefix}:${table}`, `${this.prefix}:${table}:processing`];
  }

  async enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]) {
    await this.redis.lpush(this.keys(table)[0], JSON.stringify(withId(row)));
  }
  async size(table: AnalyticsTable) {
    return this.redis.llen(this.keys(table)[0]);
  }
  async take<T extends AnalyticsTable>(table: T, max: number): Promise<Batch<T> | null> {
    const [queue, processing] = this.keys(table);
    const raw = (await this.redis.eval(TAKE, 2, queue, processing, Math.max(1, max), randomUUID())) as string | null;
    if (!raw) return null;
    const { rows } = JSON.parse(raw) as { rows: string[] };
    return {
      table,
      rows: rows.map((r) => revive<AnalyticsRows[T]>(r)),
      ack: async () => {
        await this.redis.lrem(processing, 1, raw);
      },
      nack: async () => {
        await this.redis.eval(NACK, 2, queue, processing, raw);
      },
    };
  }
  async recover() {
    let n = 0;
    for (const table of INGEST_TABLES) {
      const [queue, processing] = this.keys(table);
      n += Number(await this.redis.eval(RECOVER, 2, queue, processing));
    }
    return n;
  }
  /** Test hook: the raw processing list of one table. */
  async processingLength(table: AnalyticsTable) {
    return this.redis.llen(this.keys(table)[1]);
  }
  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export function createIngestBuffer(redisUrl: string | undefined | null): IngestBuffer {
  return redisUrl ? new RedisIngestBuffer(redisUrl) : new MemoryIngestBuffer();
}
