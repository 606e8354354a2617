import {
  type AnalyticsRows,
  type AnalyticsTable,
  type Batch,
  BufferFull,
  type BufferRoom,
  DEFAULT_MAX_BUFFER_BYTES,
  DEFAULT_MAX_BUFFER_ROWS,
  type IngestBuffer,
  type LocalRows,
  rowBytes,
  withId,
} from './buffer.ts';

/**
 * In-process buffer: arrays, bounded by `maxRows` and by `maxBytes` of their rows (`rowBytes`) over every table
 * (queued and in processing), so a database outage fills it up to a known size and then turns new reports away
 * (503) instead of eating memory. Lost on a crash like any in-process state (a shutdown saves it to disk: see
 * spill.ts).
 */
export class MemoryIngestBuffer implements IngestBuffer {
  readonly kind = 'memory' as const;
  private readonly queues = new Map<AnalyticsTable, unknown[]>();
  private readonly processing = new Map<number, { table: AnalyticsTable; rows: unknown[] }>();
  private seq = 0;
  private held = 0;
  private heldBytes = 0;
  /**
   * Each held row's size as counted when it came in: given back as counted, whatever a flush did to the row since
   * (the insert cleans rows in place; counted again, the total drifted).
   */
  private readonly sizes = new WeakMap<object, number>();
  /** Rows promised room by `holdRoom` and not queued yet: counted against `maxRows` like held ones. */
  private promised = 0;

  /** Set at shutdown (`holdPastMaximum`): rows are no longer refused for the maximum's sake. */
  private pastMaximum = false;
  constructor(
    private readonly maxRows = DEFAULT_MAX_BUFFER_ROWS,
    private readonly maxBytes = DEFAULT_MAX_BUFFER_BYTES,
  ) {}

  private queue(table: AnalyticsTable): unknown[] {
    let q = this.queues.get(table);
    if (!q) {
      q = [];
      this.queues.set(table, q);
    }
    return q;
  }

  async enqueue<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) {
    const held = rows.map(withId);
    const sizes = held.map(rowBytes);
    if (!this.pastMaximum) {
      if (this.held + this.promised + rows.length > this.maxRows) throw new BufferFull(this.maxRows);
      if (this.heldBytes + sizes.reduce((a, b) => a + b, 0) > this.maxBytes) throw new BufferFull(this.maxBytes, 'bytes');
    }
    this.push(table, held, sizes);
  }

  /** Queues rows given their ids, each with its size (`rowBytes`), counted once as it comes in. */
  private push(table: AnalyticsTable, held: readonly object[], sizes: readonly number[]) {
    const q = this.queue(table);
    for (const [i, row] of held.entries()) {
      const bytes = sizes[i] as number;
      this.sizes.set(row, bytes);
      this.heldBytes += bytes;
      q.push(row);
    }
    this.held += held.length;
  }

  /** Room for rows not built yet: refused once the rows held reach either maximum (a report's rows may pass the bytes'). */
  holdRoom(rows: number): BufferRoom {
    if (this.held + this.promised + rows > this.maxRows) throw new BufferFull(this.maxRows);
    if (this.heldBytes >= this.maxBytes) throw new BufferFull(this.maxBytes, 'bytes');
    this.promised += rows;
    return new Room(this, rows);
  }

  /** For `Room`: rows queued within room promised before. */
  queuePromised<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) {
    this.promised -= rows.length;
    const held = rows.map(withId);
    this.push(table, held, held.map(rowBytes));
  }

  /** For `Room`: promised room given back unused. */
  givePromisedBack(rows: number) {
    this.promised -= rows;
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
      unreadable: [],
      ack: async () => {
        if (!this.processing.delete(id)) return;
        this.held -= rows.length;
        for (const row of rows) this.heldBytes -= this.sizes.get(row) ?? 0;
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
  /** A batch in processing here belongs to a flush of this very process: nothing is ever stale. */
  async reclaimStale() {
    return 0;
  }
  takeLocal(): LocalRows[] {
    const out = new Map<AnalyticsTable, unknown[]>();
    const add = (table: AnalyticsTable, rows: unknown[]) => out.set(table, [...(out.get(table) ?? []), ...rows]);
    for (const { table, rows } of this.processing.values()) add(table, rows);
    for (const [table, q] of this.queues) add(table, q.splice(0));
    this.processing.clear();
    this.held = 0;
    this.heldBytes = 0;
    return [...out].filter(([, rows]) => rows.length).map(([table, rows]) => ({ table, rows }) as LocalRows);
  }
  holdPastMaximum() {
    this.pastMaximum = true;
  }
  async close() {}
}

/**
 * Room held in a `MemoryIngestBuffer` (`holdRoom`). A class rather than an object of closures: one is made
 * per page report, and the TypeScript loader names every closure it makes (a `defineProperty` each).
 */
class Room implements BufferRoom {
  constructor(
    private readonly buffer: MemoryIngestBuffer,
    private left: number,
  ) {}

  enqueue<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]) {
    if (rows.length > this.left) throw new Error(`${rows.length} rows for a room of ${this.left}`);
    this.left -= rows.length;
    this.buffer.queuePromised(table, rows);
  }

  release() {
    this.buffer.givePromisedBack(this.left);
    this.left = 0;
  }
}
