import { type AnalyticsRows, type AnalyticsTable, timeOrderedUuid } from '@us/db';

export type { AnalyticsRows, AnalyticsTable };
export const INGEST_TABLES: readonly AnalyticsTable[] = ['pageviews', 'page_leaves', 'events', 'requests'];

/** Rows the buffer holds at most by default (in-process: all tables together; Redis: per table). */
export const DEFAULT_MAX_BUFFER_ROWS = 200_000;

/** The in-process buffer's rows' size at most by default (`rowBytes`), so rows of many properties cannot fill the heap. */
export const DEFAULT_MAX_BUFFER_BYTES = 128 * 1024 * 1024;

/**
 * A row's size as the buffer counts it: the characters of its text (its properties' keys and values too) and 8
 * bytes for anything else; an estimate of what it holds of the heap, read in one pass over its fields.
 */
export function rowBytes(row: object): number {
  let n = 0;
  for (const key in row) {
    const v = (row as Record<string, unknown>)[key];
    if (typeof v === 'string') n += v.length + 8;
    else if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      for (const k in v) {
        const inner = (v as Record<string, unknown>)[k];
        n += k.length + (typeof inner === 'string' ? inner.length : 8) + 8;
      }
    } else n += 8;
  }
  return n;
}

/** A batch taken out of the queue: `ack` after the DB commit, `nack` to put it back for a retry. */
export interface Batch<T extends AnalyticsTable = AnalyticsTable> {
  readonly table: T;
  readonly rows: AnalyticsRows[T][];
  /** Buffered entries that could not be read back (never retried: they go to the dead letters). */
  readonly unreadable: string[];
  ack(): Promise<void>;
  nack(): Promise<void>;
}

/** Rows of one table kept only in this process (what a shutdown must save to disk). */
export interface LocalRows<T extends AnalyticsTable = AnalyticsTable> {
  table: T;
  rows: AnalyticsRows[T][];
}

/**
 * The buffer is full: the rows were not queued. The collector answers 503 with Retry-After, so the
 * sender keeps them; nothing acknowledged is ever dropped.
 */
export class BufferFull extends Error {
  readonly retryAfter = 5;
  constructor(max: number, unit = 'rows') {
    super(`the write buffer holds its maximum of ${max} ${unit}`);
    this.name = 'BufferFull';
  }
}

/**
 * Room held in the buffer for rows queued a moment later: counted against the maximum from the moment
 * it is held, so rows queued through it never meet `BufferFull` (see `MemoryIngestBuffer.holdRoom`).
 */
export interface BufferRoom {
  /** Queues rows of one table within the room (more rows than the room has left is a caller's bug: thrown). */
  enqueue<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): void;
  /** Gives back the room not used. */
  release(): void;
}

/**
 * The write buffer in front of the raw tables. Two implementations, one contract: in-process (one node)
 * and Redis (shared, survives a crash of the node). Every row gets its `id` at enqueue, so a batch
 * inserted twice (a retry after a commit whose answer was lost, a crash between commit and ack, a
 * reclaimed batch) is stored once: the primary key (site_id, day, id) with `on conflict do nothing`.
 */
export interface IngestBuffer {
  readonly kind: 'memory' | 'redis';
  /** Queues rows of one table, all or none; `BufferFull` when that would pass the maximum. Never touches the database. */
  enqueue<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): Promise<void>;
  /**
   * Room for up to `rows` rows, held at once (`BufferFull` when there is none), for buffers that can answer
   * without waiting: only the in-process one. Redis answers over the network, so its rows are queued before
   * the answer instead.
   */
  holdRoom?(rows: number): BufferRoom;
  /** Rows waiting (not counting batches being processed). */
  size(table: AnalyticsTable): Promise<number>;
  /** Moves up to `max` of the oldest rows into processing; null when none wait. */
  take<T extends AnalyticsTable>(table: T, max: number): Promise<Batch<T> | null>;
  /**
   * Puts every batch left in processing (by a crashed flush) back at the head of its queue; returns rows moved.
   * A shared store it cannot reach is left for `reclaimStale`, and `unreachable` told why.
   */
  recover(unreachable?: (err: unknown) => void): Promise<number>;
  /** Puts back batches that have been in processing longer than `olderThanMs` (a node died mid-flush). */
  reclaimStale(olderThanMs: number): Promise<number>;
  /** Takes every row held only in this process, queued or in processing (at shutdown, to save them). */
  takeLocal(): LocalRows[];
  /**
   * At shutdown, before the last rows come (the proxy's waiting request records): from now on rows past the
   * maximum are held in this process instead of refused, since what it holds is saved to the spill folder moments later.
   */
  holdPastMaximum(): void;
  close(): Promise<void>;
}

export function withId<R extends { id?: string }>(row: R): R {
  // Time-ordered: see timeOrderedUuid (inserts land at the right edge of the primary key).
  return row.id ? row : { ...row, id: timeOrderedUuid() };
}
