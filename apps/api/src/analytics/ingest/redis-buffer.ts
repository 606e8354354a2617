import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { connectRedis, isCluster, type RedisClient, type RedisTarget } from '../../core/hot/redis-connection.ts';
import {
  type AnalyticsRows,
  type AnalyticsTable,
  type Batch,
  BufferFull,
  DEFAULT_MAX_BUFFER_ROWS,
  INGEST_TABLES,
  type IngestBuffer,
  type LocalRows,
  withId,
} from './buffer.ts';
import { MemoryIngestBuffer } from './memory-buffer.ts';
import { MismatchedReply, ReplicatedPush } from './replicated-push.ts';

// Pushes the rows (ARGV[2..]) unless the queue would pass ARGV[1] rows: count first, in one step.
const ENQUEUE = `if redis.call('LLEN', KEYS[1]) + #ARGV - 1 > tonumber(ARGV[1]) then return -1 end
return redis.call('LPUSH', KEYS[1], unpack(ARGV, 2))`;

// Atomically moves up to ARGV[1] of the oldest rows (the tail; enqueue is LPUSH) into the processing
// list as one batch element stamped with the time it was taken (ARGV[3], ms). Returns it or false.
const TAKE = `local rows = redis.call('RPOP', KEYS[1], tonumber(ARGV[1]))
if not rows then return false end
local batch = cjson.encode({ id = ARGV[2], at = tonumber(ARGV[3]), rows = rows })
redis.call('LPUSH', KEYS[2], batch)
return batch`;

// Removes one batch from processing and puts its rows back at the tail (the next to be taken), in order.
const NACK = `local removed = redis.call('LREM', KEYS[2], 1, ARGV[1])
if removed == 0 then return 0 end
local batch = cjson.decode(ARGV[1])
for i = #batch.rows, 1, -1 do redis.call('RPUSH', KEYS[1], batch.rows[i]) end
return #batch.rows`;

// Re-queues the batches in processing taken before ARGV[1] (ms): a flush that died. An element that is
// not readable goes back as it is, for the flusher to set aside.
const RECLAIM = `local cutoff = tonumber(ARGV[1])
local n = 0
for _, b in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  local ok, batch = pcall(cjson.decode, b)
  if not ok then
    redis.call('LREM', KEYS[2], 1, b)
    redis.call('RPUSH', KEYS[1], b)
    n = n + 1
  elseif (batch.at or 0) < cutoff and redis.call('LREM', KEYS[2], 1, b) > 0 then
    for i = #batch.rows, 1, -1 do redis.call('RPUSH', KEYS[1], batch.rows[i]) end
    n = n + #batch.rows
  end
end
return n`;

/** A buffered row read back; a row that is not JSON (or not an object) stays text for the dead letters. */
function revive(json: string): { row: unknown } | null {
  try {
    const row = JSON.parse(json) as { at?: unknown } | null;
    if (!row || typeof row !== 'object') return null;
    if (typeof row.at === 'string' || typeof row.at === 'number') row.at = new Date(row.at);
    return { row };
  } catch {
    return null;
  }
}

/** Rows revived between two turns of the event loop: a whole taken batch (5,000 rows, ~3 MB) held it ~20 ms. */
const REVIVE_SLICE = 500;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A taken batch's rows revived a slice at a time, letting other work in between: readable rows, and the rest as text. */
async function reviveAll<R>(texts: string[]): Promise<{ rows: R[]; unreadable: string[] }> {
  const rows: R[] = [];
  const unreadable: string[] = [];
  for (let i = 0; i < texts.length; i++) {
    if (i > 0 && i % REVIVE_SLICE === 0) await nextTurn();
    const text = texts[i] as string;
    const revived = revive(text);
    if (revived) rows.push(revived.row as R);
    else unreadable.push(text);
  }
  return { rows, unreadable };
}

/** Where a queue's processing list was before clusters were supported (`{<queue>}:processing` since). */
const LEGACY_PROCESSING = (queue: string) => `${queue}:processing`;

/** How long a command waits for Redis's answer before it fails (and a push goes to the fallback). */
const COMMAND_TIMEOUT_MS = 500;

/**
 * Redis buffer: a list per table (`us:ingest:<table>`, LPUSH) and a processing list
 * (`{us:ingest:<table>}:processing`) holding the batches a flusher has taken and not yet committed,
 * each stamped with when it was taken. A batch leaves processing only after the DB commit (`ack`).
 * `recover()` at start-up and `reclaimStale()` every half minute re-queue what a dead flush left.
 *
 * The scripts move rows between a queue and its processing list in one step, which a Redis Cluster runs only
 * within one slot: the processing list's hash tag is the queue's whole name, so both hash alike while the
 * queue keeps the name it had before clusters were supported (rows queued by an older version are taken as
 * they are). Its processing list was then `us:ingest:<table>:processing`: on one Redis, batches an older node
 * left there are put back too (`LEGACY_PROCESSING`).
 *
 * When Redis cannot be reached, rows go to an in-process fallback (same bound) that the flusher drains
 * first, so the collector keeps answering and keeps what it acknowledged. Commands never wait for a
 * reconnection (no offline queue): the fallback is taken at once. On a cluster, a push a replica has not
 * confirmed is kept in the fallback as well (`ReplicatedPush`): a failover may lose it from Redis.
 */
export class RedisIngestBuffer implements IngestBuffer {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient;
  private readonly cluster: boolean;
  private readonly local: MemoryIngestBuffer;
  /** On a cluster: pushes a replica confirms, or that are kept in the process as well. */
  private readonly replicated?: ReplicatedPush;
  private readonly ready: Promise<void>;
  private everReady = false;
  private waitedForFirst = false;
  /** Set at shutdown (`holdPastMaximum`): a full queue no longer refuses rows. */
  private pastMaximum = false;

  constructor(
    target: RedisTarget,
    readonly prefix = 'ingest',
    private readonly maxRows = DEFAULT_MAX_BUFFER_ROWS,
    private readonly onFallback: (err: unknown) => void = () => {},
  ) {
    if (/[{}]/.test(prefix)) throw new Error(`an ingest buffer prefix has no braces: ${prefix}`);
    this.cluster = isCluster(target);
    // No key prefix: the processing list's name starts with its hash tag (see `keys`).
    this.redis = connectRedis(target, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      // A cluster retries a command meant for a lost master every 100 ms until its replica takes over: a few
      // times only, then the push goes to the fallback (a report waits at most about half a second for it).
      maxRedirections: 4,
      protocol: 2,
      // A Redis that stops answering with its connection open (paused, partitioned) sends no error of its
      // own: a command gets one after this long (see `enqueue`).
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    this.redis.on('error', () => {});
    if (this.cluster) this.replicated = new ReplicatedPush(this.redis as Cluster, ENQUEUE);
    this.local = new MemoryIngestBuffer(maxRows);
    this.ready = new Promise<void>((resolve) =>
      this.redis.once('ready', () => {
        this.everReady = true;
        resolve();
      }),
    );
  }

  /** Waits for the first connection (start-up), at most `ms`; afterwards a lost connection fails fast. */
  private async connected(ms = 3000): Promise<void> {
    if (this.redis.status === 'ready') return;
    await Promise.race([this.ready, new Promise((r) => setTimeout(r, ms).unref())]);
  }

  /** A table's queue and its processing list: the list's hash tag is the queue's name (one slot). */
  private keys(table: AnalyticsTable): [string, string] {
    const queue = `us:${this.prefix}:${table}`;
    return [queue, `{${queue}}:processing`];
  }

  async enqueue<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) {
    if (!rows.length) return;
    // The ids are given once, here: when Redis ran the push but its answer was lost (killed mid-reply),
    // the rows are in Redis and in the fallback too, and the same ids make the second insert a no-op.
    const identified = rows.map((r) => withId(r));
    const values = identified.map((r) => JSON.stringify(r));
    let pushed: number;
    let confirmed = true;
    try {
      // Only the first connection is worth a short wait, once; a lost one sends rows to the fallback at once. (Started
      // while Redis was unreachable, every report waited the second for the whole outage.)
      if (this.redis.status !== 'ready' && !this.everReady && !this.waitedForFirst) {
        await this.connected(1000);
        this.waitedForFirst = true;
      }
      const [queue] = this.keys(table);
      if (this.replicated) {
        const push = await this.replicated.eval(queue, [this.maxRows, ...values]);
        pushed = Number(push.answer);
        confirmed = push.confirmed;
      } else pushed = Number(await this.redis.eval(ENQUEUE, 1, queue, this.maxRows, ...values));
    } catch (err) {
      // A hung connection is dropped (and made again): until Redis answers its ready check, every push
      // fails at once and goes to the fallback, instead of each report waiting out the timeout. So is one
      // whose replies no longer match its commands: a new connection starts matched.
      const hung = err instanceof Error && err.message === 'Command timed out';
      if (hung || err instanceof MismatchedReply) this.redis.disconnect(true);
      this.onFallback(err);
      await this.local.enqueue(table, identified);
      return;
    }
    if (pushed < 0) {
      // Redis's queue full at shutdown: the process holds them, and saves them with the rest of what it holds.
      if (this.pastMaximum) return this.local.enqueue(table, identified);
      throw new BufferFull(this.maxRows);
    }
    // No replica confirmed them: the process keeps a copy in case the master dies before one has them. The
    // rows are in Redis already, so a fallback too full for the copy does not refuse them.
    if (!confirmed) await this.local.enqueue(table, identified).catch(() => {});
  }
  async size(table: AnalyticsTable) {
    await this.connected();
    return (await this.local.size(table)) + (await this.redis.llen(this.keys(table)[0]));
  }
  async take<T extends AnalyticsTable>(table: T, max: number): Promise<Batch<T> | null> {
    const fallback = await this.local.take(table, max);
    if (fallback) return fallback;
    // Redis not answering: its rows wait there for it, and this flush is done once the fallback is. Taken as a failed
    // flush, it backed every flush off for up to 10 s, and the fallback filled while PostgreSQL was fine.
    if (this.redis.status !== 'ready') {
      // The first connection is waited for once (start-up), as by `enqueue`.
      if (this.everReady || this.waitedForFirst) return null;
      await this.connected();
      this.waitedForFirst = true;
      // (Read again: the wait may have changed it.)
      if ((this.redis.status as string) !== 'ready') return null;
    }
    const [queue, processing] = this.keys(table);
    let raw: string | null;
    try {
      raw = (await this.redis.eval(TAKE, 2, queue, processing, Math.max(1, max), randomUUID(), Date.now())) as string | null;
    } catch (err) {
      // Lost under the command: as above. A Redis that answers with an error is a failure of the flush.
      if (this.redis.status === 'ready') throw err;
      return null;
    }
    if (!raw) return null;
    const { rows, unreadable } = await reviveAll<AnalyticsRows[T]>((JSON.parse(raw) as { rows: string[] }).rows);
    return {
      table,
      rows,
      unreadable,
      ack: async () => {
        await this.redis.lrem(processing, 1, raw);
      },
      nack: async () => {
        await this.redis.eval(NACK, 2, queue, processing, raw);
      },
    };
  }
  /**
   * At start-up: the batches a stopped flush left in processing, put back. A Redis not reachable then does not
   * stop the start (reports go to the process meanwhile, as in any outage): its batches are put back by the
   * periodic reclaim once it answers (`reclaimStale`), and `unreachable` is told why.
   */
  async recover(unreachable: (err: unknown) => void = () => {}) {
    const n = await this.local.recover();
    await this.connected();
    if (this.redis.status !== 'ready') {
      unreachable(new Error(`no connection within 3 s (${this.redis.status})`));
      return n;
    }
    try {
      return n + (await this.reclaim(Number.MAX_SAFE_INTEGER));
    } catch (err) {
      // Lost or hung meanwhile: the same outage. Anything else is a fault of ours, and stops the start.
      const outage = this.redis.status !== 'ready' || (err instanceof Error && err.message === 'Command timed out');
      if (!outage) throw err;
      unreachable(err);
      return n;
    }
  }
  async reclaimStale(olderThanMs: number) {
    return this.reclaim(Date.now() - olderThanMs);
  }
  /** Puts back the batches taken before `cutoff` (ms), from each table's processing list and, on one Redis, the old one. */
  private async reclaim(cutoff: number) {
    let n = 0;
    for (const table of INGEST_TABLES) {
      const [queue, processing] = this.keys(table);
      n += Number(await this.redis.eval(RECLAIM, 2, queue, processing, cutoff));
      // A cluster never held the old name (nor could it take it with the queue in one step: another slot).
      if (!this.cluster) n += Number(await this.redis.eval(RECLAIM, 2, queue, LEGACY_PROCESSING(queue), cutoff));
    }
    return n;
  }
  holdPastMaximum() {
    this.pastMaximum = true;
    this.local.holdPastMaximum();
  }
  takeLocal(): LocalRows[] {
    return this.local.takeLocal();
  }
  /** Test hook: the raw processing list of one table. */
  async processingLength(table: AnalyticsTable) {
    return this.redis.llen(this.keys(table)[1]);
  }
  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
