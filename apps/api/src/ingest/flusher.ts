import type { Logger } from '../logger.ts';
import { type AnalyticsRows, type AnalyticsTable, INGEST_TABLES, type IngestBuffer } from './buffer.ts';

export type Inserter = <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => Promise<number>;

export interface FlushResult {
  inserted: number;
  /** The error of the first failed batch, whose rows went back into the buffer. */
  error?: unknown;
}

export interface FlusherOptions {
  buffer: IngestBuffer;
  insert: Inserter;
  logger?: Pick<Logger, 'error' | 'warn'>;
  /** Rows per insert, and the queue length that triggers a flush before the timer. Default 500. */
  batchSize?: number;
  /** Flush period. Default 1000 ms. */
  intervalMs?: number;
  /** First retry delay after a failed insert, doubling up to maxBackoffMs. Defaults 500 / 30000 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Moves rows from the buffer into PostgreSQL: every `intervalMs`, or sooner when `batchSize` rows wait.
 * A batch is acknowledged (removed from the buffer) only after its insert committed; a failed insert
 * puts the batch back and the loop backs off before retrying. One flush runs at a time per process.
 */
export class Flusher {
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FlushResult> | undefined;
  private failures = 0;
  private retryAt = 0;
  private pending = 0;
  private stopped = false;

  constructor(private readonly opts: FlusherOptions) {
    this.batchSize = opts.batchSize ?? 500;
    this.intervalMs = opts.intervalMs ?? 1000;
    this.backoffMs = opts.backoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Counts a newly enqueued row; starts a flush early once a full batch waits. */
  noteEnqueued(): void {
    this.pending += 1;
    if (this.pending >= this.batchSize && this.timer) void this.tick();
  }

  /** A timer tick: flushes unless a retry is backing off. */
  private async tick(): Promise<void> {
    if (this.running || Date.now() < this.retryAt) return;
    await this.flushNow();
  }

  /** Flushes everything waiting now (ignoring any backoff). Never throws; see `error`. */
  flushNow(): Promise<FlushResult> {
    if (this.running) return this.running.then(() => this.flushNow());
    const run = this.drain().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async drain(): Promise<FlushResult> {
    this.pending = 0;
    let inserted = 0;
    for (const table of INGEST_TABLES) {
      for (;;) {
        let batch: Awaited<ReturnType<IngestBuffer['take']>>;
        try {
          batch = await this.opts.buffer.take(table, this.batchSize);
        } catch (error) {
          return this.failed(inserted, error);
        }
        if (!batch) break;
        try {
          inserted += await this.opts.insert(table, batch.rows);
        } catch (error) {
          // Keep the rows: back into the queue for the next attempt (their ids make a retry idempotent).
          await batch.nack().catch(() => {});
          return this.failed(inserted, error);
        }
        // Committed: only now does the batch leave the buffer. If this ack is lost, a re-insert is a no-op.
        await batch.ack().catch((e) => this.opts.logger?.warn(`ingest ack failed: ${String(e)}`));
        if (batch.rows.length < this.batchSize) break;
      }
    }
    this.failures = 0;
    this.retryAt = 0;
    return { inserted };
  }

  private failed(inserted: number, error: unknown): FlushResult {
    this.failures += 1;
    const delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (this.failures - 1));
    this.retryAt = Date.now() + delay;
    this.opts.logger?.error(`ingest flush failed (attempt ${this.failures}); retrying in ${delay} ms`, error);
    return { inserted, error };
  }

  /** Stops the timer and makes one last flush attempt. */
  async stop(): Promise<FlushResult> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return this.flushNow();
  }
}
