import { ensurePartitions, hasSqlState, insertDeadLetters, insertRows, type Orm, pruneDeadLetters } from '@us/db';
import { within } from '../../core/deadline.ts';
import type { RedisTarget } from '../../core/hot/redis-connection.ts';
import type { Logger } from '../../core/logger.ts';
import { ingestRefused, ingestSpilledRows } from '../../core/observe/metrics.ts';
import { dropRolledUpPartitions } from '../rollup/retention.ts';
import { type AnalyticsRows, type AnalyticsTable, BufferFull, type IngestBuffer } from './buffer.ts';
import { Flusher, type FlushResult, type Inserter } from './flusher.ts';
import { MemoryIngestBuffer } from './memory-buffer.ts';
import { RedisIngestBuffer } from './redis-buffer.ts';
import { type IngestRoom, openRooms } from './rooms.ts';
import { readSpills, removeSpills, spillRows } from './spill.ts';

const DAY_MS = 86_400_000;
/** Dead letters are kept this many days for inspection. */
const DEAD_LETTER_DAYS = 30;

export interface StartIngestArgs {
  orm: Orm;
  /** Shared Redis buffer (one server or a cluster) when set; in-process arrays otherwise (same as the hot store's choice). */
  redis?: RedisTarget | null;
  /** Or a ready buffer (tests). Closed by `stop()` only when startIngest created it. */
  buffer?: IngestBuffer;
  logger?: Logger;
  /**
   * The insert of a batch; the default is the plain PostgreSQL insert. The server passes one that also
   * counts plan allowances and sends their notices (`countingInserter`, features/billing); tests, others.
   */
  insert?: Inserter;
  batchSize?: number;
  /** Rows per insert (default `batchSize` when given, else 5,000: see `FlusherOptions.insertSize`). */
  insertSize?: number;
  intervalMs?: number;
  /** Least time between two early flushes' starts (default 100 ms: see `FlusherOptions.minGapMs`). */
  minGapMs?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How often, and after how long, batches left in processing by a dead flush are put back (tests). */
  reclaimEveryMs?: number;
  staleAfterMs?: number;
  /** Rows the buffer holds at most before new reports are answered 503 (default 200,000). */
  maxBufferRows?: number;
  /** The in-process buffer's rows' size at most (`rowBytes`). */
  maxBufferBytes?: number;
  /**
   * Where rows still held in this process at shutdown are saved, and read back at start-up
   * (`DATA_DIR/ingest-spill`). Without it, such rows are logged as lost (tests only).
   */
  spillDir?: string;
  /** Partitions kept ready ahead of today. Default 7. */
  daysAhead?: number;
  /**
   * Drop raw partitions whose UTC day is more than this many days old on each maintenance run, once
   * every site has rolled their days up (`dropRolledUpPartitions`). Off unless set: the server sets
   * RAW_PARTITION_DAYS (92); the test harness leaves it off so suites' old partitions stay.
   */
  retainRawDays?: number;
  /** After a start whose partition upkeep met a raw table held too long: when it is tried again. Default 60 s. */
  partitionRetryMs?: number;
}

declare module '../../core/deps.ts' {
  interface Deps {
    /** Buffered writer for the analytics tables (pageviews, events, requests). */
    ingest: Ingest;
  }
}

export interface Ingest {
  /** Queues one row; `BufferFull` (answered 503 with Retry-After) when the buffer is at its maximum. */
  enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]): Promise<void>;
  /** Queues rows of one table, all or none. */
  enqueueMany<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): Promise<void>;
  /**
   * Room for up to `rows` rows to be queued a moment later, held at once (`BufferFull` when there is none),
   * so a report can be answered before its rows are built; null when the buffer cannot hold room ahead
   * (Redis: queue before answering). `flushNow` and `stop` first wait for the rooms open when they are called.
   */
  holdRoom(rows: number): IngestRoom | null;
  /** Waits for the rooms held now, then flushes. */
  flushNow(): Promise<FlushResult>;
  /**
   * Queues the last rows (`lastRows`: the proxy's waiting request records), past the buffer's maximum if need be,
   * waits for the rooms held now, then the last flush, all within `deadlineMs` (default 10 s), then saves what is
   * still held in this process.
   */
  stop(deadlineMs?: number, lastRows?: () => Promise<unknown>): Promise<FlushResult>;
  /**
   * Saves what this process still holds to the spill folder at once, synchronously: for a process about to end
   * without `stop` (an error nothing caught, a second stop signal). Answers how many rows were saved.
   */
  saveHeldNow(): number;
  readonly buffer: IngestBuffer;
}

export function createIngestBuffer(
  redis: RedisTarget | undefined | null,
  opts: { maxRows?: number; maxBytes?: number; logger?: Logger } = {},
): IngestBuffer {
  if (!redis) return new MemoryIngestBuffer(opts.maxRows, opts.maxBytes);
  let warnedAt = 0;
  return new RedisIngestBuffer(redis, 'ingest', opts.maxRows, (err) => {
    if (Date.now() - warnedAt < 10_000) return;
    warnedAt = Date.now();
    opts.logger?.warn(`ingest: Redis unreachable (${String(err)}); buffering in this process until it is back`);
  });
}

/**
 * Partition upkeep: partitions for yesterday through `daysAhead`, and when enabled the drop of raw
 * partitions older than `retainRawDays` UTC days whose days are rolled up (never a day a site still
 * has to roll up).
 */
export async function maintainPartitions(
  orm: Orm,
  opts: { now?: Date; daysAhead?: number; retainRawDays?: number; logger?: Logger } = {},
) {
  const now = opts.now ?? new Date();
  await ensurePartitions(orm, { from: new Date(now.getTime() - DAY_MS), daysAhead: (opts.daysAhead ?? 7) + 1 });
  if (opts.retainRawDays) await dropRolledUpPartitions(orm, { now, rawDays: opts.retainRawDays, logger: opts.logger });
  await pruneDeadLetters(orm, DEAD_LETTER_DAYS);
}

/** Counts a refusal of a full buffer (answered 503: the sender retries), then throws it on. */
function countRefusal(err: unknown): never {
  if (err instanceof BufferFull) ingestRefused.inc();
  throw err;
}

/** Queues the rows a previous process saved at shutdown and stores them; removes the files once stored. */
async function restoreSpills(dir: string, buffer: IngestBuffer, flusher: Flusher, orm: Orm, logger?: Logger) {
  const spilled = readSpills(dir);
  if (!spilled.files.length) return;
  let queued = 0;
  let whole = true;
  restore: for (const { table, rows } of spilled.rows) {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      try {
        await buffer.enqueue(table, chunk);
      } catch (err) {
        if (!(err instanceof BufferFull)) throw err;
        await flusher.flushNow();
        // Still full (the flush could not store): the start goes on, and the files stay for the next one. Thrown,
        // it ended every start the same way while the files stayed.
        const again = await buffer.enqueue(table, chunk).then(
          () => true,
          (e: unknown) => {
            if (!(e instanceof BufferFull)) throw e;
            return false;
          },
        );
        if (!again) {
          whole = false;
          break restore;
        }
      }
      queued += chunk.length;
    }
  }
  await insertDeadLetters(
    orm,
    spilled.unreadable.map((row) => ({ table: 'pageviews', row, reason: 'a saved line could not be read back' })),
  );
  ingestSpilledRows.inc({ event: 'restored' }, queued);
  const flushed = await flusher.flushNow();
  const stored = whole && flushed.error === undefined;
  if (stored) removeSpills(spilled.files);
  logger?.warn(
    `ingest: ${queued} rows saved at the last shutdown were queued again` +
      (stored ? ' and stored' : '; they stay on disk until stored (stored rows are not stored twice)'),
  );
}

/**
 * Starts analytics ingest on this node: ensures partitions, re-queues batches a crashed flush left in
 * processing, then flushes every second (or at 500 waiting rows). Safe on every node at once.
 */
export async function startIngest(args: StartIngestArgs): Promise<Ingest> {
  const own = !args.buffer;
  const buffer =
    args.buffer ??
    createIngestBuffer(args.redis, { maxRows: args.maxBufferRows, maxBytes: args.maxBufferBytes, logger: args.logger });
  const daysAhead = args.daysAhead ?? 7;
  const upkeep = () => maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays, logger: args.logger });
  // A raw table held past the partition change's retries (an export streaming a day, a long question): the start
  // goes on (a row of a day without its partition makes it as it is inserted) and the upkeep is tried again soon.
  // It stopped the start, and a restarted node came up only once the reader was done.
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  await upkeep().catch((err) => {
    if (!hasSqlState(err, '55P03')) throw err;
    args.logger?.warn('ingest: a raw table was held too long to keep its partitions at start-up: tried again in a minute');
    // Until it succeeds, and never after the stop (an upkeep running as the stop came would start another).
    const again = () => {
      if (stopped) return;
      retry = setTimeout(() => upkeep().catch(again), args.partitionRetryMs ?? 60_000);
      retry.unref();
    };
    again();
  });
  const recovered = await buffer.recover((err) =>
    args.logger?.warn(
      `ingest: Redis is not reachable at start-up (${err instanceof Error ? err.message : String(err)}): reports are buffered in this process until it is, and batches an interrupted flush left in Redis are put back once it answers`,
    ),
  );
  if (recovered) args.logger?.warn(`ingest: re-queued ${recovered} rows left by an interrupted flush`);

  const insert: Inserter = args.insert ?? ((table, rows) => insertRows(args.orm, table, rows));
  const flusher = new Flusher({
    buffer,
    insert,
    deadLetter: (letters) => insertDeadLetters(args.orm, letters),
    logger: args.logger,
    batchSize: args.batchSize,
    insertSize: args.insertSize,
    intervalMs: args.intervalMs,
    minGapMs: args.minGapMs,
    backoffMs: args.backoffMs,
    maxBackoffMs: args.maxBackoffMs,
    reclaimEveryMs: args.reclaimEveryMs,
    staleAfterMs: args.staleAfterMs,
  });
  if (args.spillDir) await restoreSpills(args.spillDir, buffer, flusher, args.orm, args.logger);
  flusher.start();
  const daily = setInterval(() => {
    maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays, logger: args.logger }).catch((e) =>
      args.logger?.error('ingest: partition maintenance failed', e),
    );
  }, 6 * 3600_000);
  daily.unref();
  const rooms = openRooms(buffer, (rows) => flusher.noteEnqueued(rows));
  const saveHeldNow = () => {
    const held = buffer.takeLocal();
    const count = held.reduce((n, h) => n + h.rows.length, 0);
    if (count && args.spillDir) {
      const file = spillRows(args.spillDir, held);
      ingestSpilledRows.inc({ event: 'saved' }, count);
      args.logger?.warn(`ingest: ${count} rows not yet stored were saved to ${file}; the next start stores them`);
    } else if (count) args.logger?.error(`ingest: ${count} rows not yet stored are lost (no spill folder)`);
    return args.spillDir ? count : 0;
  };

  return {
    buffer,
    async enqueue(table, row) {
      await buffer.enqueue(table, [row]).catch(countRefusal);
      flusher.noteEnqueued();
    },
    async enqueueMany(table, rows) {
      await buffer.enqueue(table, rows).catch(countRefusal);
      flusher.noteEnqueued(rows.length);
    },
    holdRoom: (rows) => {
      try {
        return rooms.hold(rows);
      } catch (err) {
        return countRefusal(err);
      }
    },
    async flushNow() {
      await rooms.released();
      return flusher.flushNow();
    },
    async stop(deadlineMs = 10_000, lastRows) {
      clearInterval(daily);
      stopped = true;
      clearTimeout(retry);
      const started = Date.now();
      // A full buffer refused them while the process ran; now what it holds is saved moments later.
      buffer.holdPastMaximum();
      if (lastRows) await within(lastRows(), deadlineMs);
      await within(rooms.released(), Math.max(0, deadlineMs - (Date.now() - started)));
      const last = await flusher.stop(Math.max(0, deadlineMs - (Date.now() - started)));
      saveHeldNow();
      if (own) await buffer.close();
      return last;
    },
    saveHeldNow,
  };
}
