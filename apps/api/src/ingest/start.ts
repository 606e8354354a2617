import type { Orm } from '@us/db';
import type { Logger } from '../logger.ts';
import { type AnalyticsRows, type AnalyticsTable, createIngestBuffer, type IngestBuffer } from './buffer.ts';
import { dropPartitionsBefore, ensurePartitions, insertRows } from '@us/db';
import { type FlushResult, Flusher, type Inserter } from './flusher.ts';

const DAY_MS = 86_400_000;

export interface StartIngestArgs {
  orm: Orm;
  /** Shared Redis buffer when set; in-process arrays otherwise (same as the hot store's choice). */
  redisUrl?: string | null;
  /** Or a ready buffer (tests). Closed by `stop()` only when startIngest created it. */
  buffer?: IngestBuffer;
  logger?: Logger;
  /** Replaces the PostgreSQL insert (tests). */
  insert?: Inserter;
  batchSize?: number;
  intervalMs?: number;
  backoffMs?: number;
  /** Partitions kept ready ahead of today. Default 7. */
  daysAhead?: number;
  /**
   * Drop raw partitions older than this many days on the daily maintenance run. Off by default:
   * turn it on (90, spec §8) once the daily rollup job writes `daily_rollups` before the drop.
   */
  retainRawDays?: number;
}

export interface Ingest {
  enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]): Promise<void>;
  flushNow(): Promise<FlushResult>;
  stop(): Promise<FlushResult>;
  readonly buffer: IngestBuffer;
}

/** Partition upkeep: partitions for yesterday through `daysAhead`, and the retention drop when enabled. */
export async function maintainPartitions(orm: Orm, opts: { now?: Date; daysAhead?: number; retainRawDays?: number } = {}) {
  const now = opts.now ?? new Date();
  await ensurePartitions(orm, { from: new Date(now.getTime() - DAY_MS), daysAhead: (opts.daysAhead ?? 7) + 1 });
  if (opts.retainRawDays) await dropPartitionsBefore(orm, new Date(now.getTime() - opts.retainRawDays * DAY_MS));
}

/**
 * Starts analytics ingest on this node: ensures partitions, re-queues batches a crashed flush left in
 * processing, then flushes every second (or at 500 waiting rows). Safe on every node at once.
 */
export async function startIngest(args: StartIngestArgs): Promise<Ingest> {
  const own = !args.buffer;
  const buffer = args.buffer ?? createIngestBuffer(args.redisUrl);
  const daysAhead = args.daysAhead ?? 7;
  await maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays });
  const recovered = await buffer.recover();
  if (recovered) args.logger?.warn(`ingest: re-queued ${recovered} rows left by an interrupted flush`);

  const insert: Inserter = args.insert ?? ((table, rows) => insertRows(args.orm, table, rows));
  const flusher = new Flusher({
    buffer,
    insert,
    logger: args.logger,
    batchSize: args.batchSize,
    intervalMs: args.intervalMs,
    backoffMs: args.backoffMs,
  });
  flusher.start();
  const daily = setInterval(() => {
    maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays }).catch((e) =>
      args.logger?.error('ingest: partition maintenance failed', e),
    );
  }, 6 * 3600_000);
  daily.unref();

  return {
    buffer,
    async enqueue(table, row) {
      await buffer.enqueue(table, row);
      flusher.noteEnqueued();
    },
    flushNow: () => flusher.flushNow(),
    async stop() {
      clearInterval(daily);
      const last = await flusher.stop();
      if (own) await buffer.close();
      return last;
    },
  };
}
