import type { Orm } from '@us/db';
import type { Logger } from '../logger.ts';
import { type AnalyticsRows, type AnalyticsTable, createIngestBuffer, type IngestBuffer } from './buffer.ts';
import { ensurePartitions } from '@us/db';
import { dropRolledUpPartitions } from '../jobs/retention.ts';
import type { Mailer } from '../mail/mailer.ts';
import { countingInserter } from '../usage/counters.ts';
import { type FlushResult, Flusher, type Inserter } from './flusher.ts';

const DAY_MS = 86_400_000;

export interface StartIngestArgs {
  orm: Orm;
  /** Shared Redis buffer when set; in-process arrays otherwise (same as the hot store's choice). */
  redisUrl?: string | null;
  /** Or a ready buffer (tests). Closed by `stop()` only when startIngest created it. */
  buffer?: IngestBuffer;
  logger?: Logger;
  /** Replaces the PostgreSQL insert (tests). The default also counts allowances (usage_months). */
  insert?: Inserter;
  /** Sends the Free allowance notices (80%/100%); without it they are logged as not sent. */
  mailer?: Mailer;
  /** The dashboard's address, for the link in notices. */
  appUrl?: () => string | undefined;
  batchSize?: number;
  intervalMs?: number;
  backoffMs?: number;
  /** Partitions kept ready ahead of today. Default 7. */
  daysAhead?: number;
  /**
   * Drop raw partitions whose UTC day is more than this many days old on each maintenance run, once
   * every site has rolled their days up (`dropRolledUpPartitions`). Off unless set: the server sets
   * RAW_PARTITION_DAYS (92); the test harness leaves it off so suites' old partitions stay.
   */
  retainRawDays?: number;
}

export interface Ingest {
  enqueue<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]): Promise<void>;
  flushNow(): Promise<FlushResult>;
  stop(): Promise<FlushResult>;
  readonly buffer: IngestBuffer;
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
}

/**
 * Starts analytics ingest on this node: ensures partitions, re-queues batches a crashed flush left in
 * processing, then flushes every second (or at 500 waiting rows). Safe on every node at once.
 */
export async function startIngest(args: StartIngestArgs): Promise<Ingest> {
  const own = !args.buffer;
  const buffer = args.buffer ?? createIngestBuffer(args.redisUrl);
  const daysAhead = args.daysAhead ?? 7;
  await maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays, logger: args.logger });
  const recovered = await buffer.recover();
  if (recovered) args.logger?.warn(`ingest: re-queued ${recovered} rows left by an interrupted flush`);

  const insert: Inserter =
    args.insert ?? countingInserter({ orm: args.orm, mailer: args.mailer, logger: args.logger, appUrl: args.appUrl });
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
    maintainPartitions(args.orm, { daysAhead, retainRawDays: args.retainRawDays, logger: args.logger }).catch((e) =>
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
