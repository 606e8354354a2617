import { type DeadLetter, dbFault } from '@us/db';
import type { Logger } from '../../core/logger.ts';
import { ingestDeadLetters, ingestFlushFailures, ingestStoredRows } from '../../core/observe/metrics.ts';
import { type AnalyticsRows, type AnalyticsTable, type Batch, INGEST_TABLES, type IngestBuffer } from './buffer.ts';

export type Inserter = <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) => Promise<number>;

export interface FlushResult {
  inserted: number;
  /** Rows set aside in the dead letters this flush. */
  deadLettered: number;
  /** The first error that kept a table from draining (its rows went back into the buffer). */
  error?: unknown;
}

export interface FlusherOptions {
  buffer: IngestBuffer;
  insert: Inserter;
  /** Stores rows PostgreSQL refused, with the reason; throws when the database is unreachable. */
  deadLetter: (letters: DeadLetter[]) => Promise<void>;
  logger?: Pick<Logger, 'error' | 'warn'>;
  /** The queue length that triggers a flush before the timer. Default 500. */
  batchSize?: number;
  /**
   * Rows per insert: a backlog drains in statements of up to this many (one large statement stores rows faster
   * than several small ones: docs/performance/history.md, "The first changes (issue 13)"). Default `batchSize`
   * when that is given, else 5,000.
   */
  insertSize?: number;
  /** Inserts at a time while a backlog drains, each on its own connection. Default 2. */
  parallel?: number;
  /** Flush period. Default 1000 ms. */
  intervalMs?: number;
  /**
   * Least time between the starts of two early flushes (a full batch waiting). Default 100 ms: under heavy
   * traffic the batches grow past `batchSize` instead of the flushes growing in number (each insert has its
   * transaction, statements and commit to pay for besides its rows).
   */
  minGapMs?: number;
  /** First retry delay after a failed flush, doubling up to maxBackoffMs. Defaults 500 / 10000 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How often batches stranded in processing by a dead node are put back, and how old they must be. */
  reclaimEveryMs?: number;
  staleAfterMs?: number;
}

/**
 * A failure we cannot classify is first taken for a passing one (retried with backoff, nothing set aside).
 * After this many in a row for one table it is taken for the data's: the batch is split and the rows
 * that keep failing are set aside, so an unforeseen bad row can never block its table for good.
 */
const UNKNOWN_FAILURES_BEFORE_ISOLATING = 5;

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown';

/**
 * Moves rows from the buffer into PostgreSQL: every `intervalMs`, or sooner when `batchSize` rows wait.
 * A batch leaves the buffer only after its insert committed. When PostgreSQL is unreachable the batch
 * goes back and the flusher backs off. When PostgreSQL refuses the batch for its data, the batch is
 * split in halves until the rows it refuses stand alone; those go to the dead letters with the reason
 * and every other row is stored. One table's trouble never stops the others from draining.
 */
export class Flusher {
  private readonly batchSize: number;
  private readonly insertSize: number;
  private readonly parallel: number;
  private readonly intervalMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private reclaimer: NodeJS.Timeout | undefined;
  private running: Promise<FlushResult> | undefined;
  private failures = 0;
  private retryAt = 0;
  private pending = 0;
  private readonly minGapMs: number;
  /** When the last flush started, and the timer of an early flush waiting for `minGapMs`. */
  private startedAt = Number.NEGATIVE_INFINITY;
  private early: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Consecutive failures per table whose cause we do not recognise (see `insertIsolating`). */
  private readonly unknownStreak = new Map<AnalyticsTable, number>();

  constructor(private readonly opts: FlusherOptions) {
    this.batchSize = opts.batchSize ?? 500;
    this.insertSize = opts.insertSize ?? opts.batchSize ?? 5000;
    this.parallel = opts.parallel ?? 2;
    this.intervalMs = opts.intervalMs ?? 1000;
    this.minGapMs = opts.minGapMs ?? 100;
    this.backoffMs = opts.backoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    const staleAfter = this.opts.staleAfterMs ?? 120_000;
    this.reclaimer = setInterval(() => {
      this.opts.buffer
        .reclaimStale(staleAfter)
        .then((n) => n && this.opts.logger?.warn(`ingest: put back ${n} rows a stopped flush had left in processing`))
        .catch(() => {});
    }, this.opts.reclaimEveryMs ?? 30_000);
    this.reclaimer.unref();
  }

  /** Counts newly enqueued rows; starts a flush early once a full batch waits. */
  noteEnqueued(n = 1): void {
    this.pending += n;
    if (this.pending < this.batchSize || !this.timer || this.early) return;
    const wait = this.startedAt + this.minGapMs - Date.now();
    if (wait <= 0) {
      void this.tick();
      return;
    }
    this.early = setTimeout(() => {
      this.early = undefined;
      void this.tick();
    }, wait);
    this.early.unref();
  }

  /** A timer tick: flushes unless a retry is backing off. */
  private async tick(): Promise<void> {
    if (this.running || Date.now() < this.retryAt) return;
    await this.flushNow();
  }

  /** Flushes everything waiting now (ignoring any backoff). Never throws; see `error`. */
  flushNow(): Promise<FlushResult> {
    if (this.running) return this.running.then(() => this.flushNow());
    this.startedAt = Date.now();
    const run = this.drain().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async drain(): Promise<FlushResult> {
    this.pending = 0;
    const result: FlushResult = { inserted: 0, deadLettered: 0 };
    for (const table of INGEST_TABLES) {
      try {
        await this.drainTable(table, result);
      } catch (error) {
        result.error ??= error;
      }
    }
    if (result.error === undefined) {
      this.failures = 0;
      this.retryAt = 0;
    } else this.backOff(result.error);
    return result;
  }

  /**
   * Drains one table with up to `parallel` inserts at a time: while a backlog waits, PostgreSQL stores two
   * batches on two cores (each in its own transaction, its rows acknowledged after its own commit).
   */
  private async drainTable(table: AnalyticsTable, result: FlushResult): Promise<void> {
    const loops = await Promise.allSettled(Array.from({ length: this.parallel }, () => this.drainLoop(table, result)));
    const failed = loops.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async drainLoop(table: AnalyticsTable, result: FlushResult): Promise<void> {
    for (;;) {
      const batch = await this.opts.buffer.take(table, this.insertSize);
      if (!batch) return;
      try {
        const { inserted, dead } = await this.store(batch);
        result.inserted += inserted;
        result.deadLettered += dead;
      } catch (error) {
        // Unreachable or unknown trouble: keep the rows for the next attempt (their ids make it idempotent).
        await batch.nack().catch(() => {});
        throw error;
      }
      // Committed: only now does the batch leave the buffer. If this ack is lost, a re-insert is a no-op.
      await batch.ack().catch((e) => this.opts.logger?.warn(`ingest ack failed: ${String(e)}`));
      if (batch.rows.length + batch.unreadable.length < this.insertSize) return;
    }
  }

  /** Inserts a batch, setting aside the rows PostgreSQL refuses. Throws only when the database is unavailable. */
  private async store<T extends AnalyticsTable>(batch: Batch<T>): Promise<{ inserted: number; dead: number }> {
    const letters: DeadLetter[] = batch.unreadable.map((row) => ({
      table: batch.table,
      row,
      reason: 'the buffered row could not be read back as JSON',
    }));
    const isolateUnknown = (this.unknownStreak.get(batch.table) ?? 0) >= UNKNOWN_FAILURES_BEFORE_ISOLATING;
    let inserted: number;
    try {
      inserted = await this.insertIsolating(batch.table, batch.rows, letters, isolateUnknown);
    } catch (error) {
      if (dbFault(error) === null) this.unknownStreak.set(batch.table, (this.unknownStreak.get(batch.table) ?? 0) + 1);
      throw error;
    }
    this.unknownStreak.delete(batch.table);
    ingestStoredRows.inc({ table: batch.table }, inserted);
    if (letters.length) {
      await this.opts.deadLetter(letters);
      ingestDeadLetters.inc({ table: batch.table }, letters.length);
      this.opts.logger?.warn(
        `ingest: set ${letters.length} ${batch.table} row(s) aside in ingest_dead_letters (first: ${letters[0]?.reason})`,
      );
    }
    return { inserted, dead: letters.length };
  }

  /**
   * Inserts rows; when PostgreSQL refuses them for their data (or, after repeated failures, for a reason we
   * do not recognise), halves the rows until the refused ones stand alone and sets those aside.
   */
  private async insertIsolating<T extends AnalyticsTable>(
    table: T,
    rows: AnalyticsRows[T][],
    letters: DeadLetter[],
    isolateUnknown: boolean,
  ): Promise<number> {
    if (!rows.length) return 0;
    try {
      return await this.opts.insert(table, rows);
    } catch (error) {
      const fault = dbFault(error);
      if (fault !== 'row' && !(fault === null && isolateUnknown)) throw error;
      if (rows.length === 1) {
        letters.push({ table, row: rows[0], reason: reasonOf(error) });
        return 0;
      }
      const half = Math.ceil(rows.length / 2);
      return (
        (await this.insertIsolating(table, rows.slice(0, half), letters, isolateUnknown)) +
        (await this.insertIsolating(table, rows.slice(half), letters, isolateUnknown))
      );
    }
  }

  private backOff(error: unknown) {
    ingestFlushFailures.inc();
    this.failures += 1;
    const delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (this.failures - 1));
    this.retryAt = Date.now() + delay;
    // The first failure of a streak with its cause; the retries of an outage in one line each.
    if (this.failures === 1) this.opts.logger?.error(`ingest flush failed; retrying in ${delay} ms`, error);
    else
      this.opts.logger?.warn(`ingest flush failed again (attempt ${this.failures}: ${reasonOf(error)}); retrying in ${delay} ms`);
  }

  /**
   * Stops the timers and makes one last flush, waiting at most `deadlineMs` for it. Whatever is still
   * held in this process afterwards is the caller's to save (`IngestBuffer.takeLocal`).
   */
  async stop(deadlineMs = 10_000): Promise<FlushResult> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.reclaimer) clearInterval(this.reclaimer);
    clearTimeout(this.early);
    this.early = undefined;
    this.timer = undefined;
    this.reclaimer = undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<FlushResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ inserted: 0, deadLettered: 0, error: new Error(`the last flush took longer than ${deadlineMs} ms`) }),
        deadlineMs,
      );
    });
    try {
      return await Promise.race([this.flushNow(), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
