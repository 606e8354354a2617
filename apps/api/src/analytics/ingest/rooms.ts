import type { AnalyticsRows, AnalyticsTable, IngestBuffer } from './buffer.ts';

/** Room held in the write buffer for rows built after the answer (see `Ingest.holdRoom`). */
export interface IngestRoom {
  /** Queues rows of one table within the room. */
  enqueueMany<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): void;
  /** Gives back the room not used; call it once, whatever happened (`flushNow` and `stop` wait for it). */
  release(): void;
}

/**
 * Rooms opened between two calls of `released`: how many are still open, and who waits for them to close.
 * Counted per generation rather than kept one by one (a Set entry and a promise per page report were
 * garbage the old generation paid for); a promise is made only when a flush waits.
 */
class Generation {
  open = 0;
  private waiters: (() => void)[] = [];

  closed(): Promise<void> {
    return this.open === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  release() {
    if (--this.open > 0) return;
    const done = this.waiters;
    this.waiters = [];
    for (const resolve of done) resolve();
  }
}

/**
 * The rooms a node holds open: each is rows already answered for and about to be queued, so a flush
 * asked for now (a test, the bench, shutdown) first waits for the rooms open at that moment (not for
 * rooms opened later: a steady stream of reports never holds a flush up).
 */
export function openRooms(buffer: IngestBuffer, onQueued: (rows: number) => void) {
  let current = new Generation();
  /** Earlier generations with rooms still open (rarely more than one). */
  let earlier: Generation[] = [];
  return {
    /** Room for up to `rows` rows (`BufferFull` when there is none), or null when the buffer cannot hold room ahead. */
    hold(rows: number): IngestRoom | null {
      const room = buffer.holdRoom?.(rows);
      if (!room) return null;
      const generation = current;
      generation.open++;
      let released = false;
      return {
        enqueueMany(table, queued) {
          room.enqueue(table, queued);
          onQueued(queued.length);
        },
        release() {
          if (released) return;
          released = true;
          room.release();
          generation.release();
        },
      };
    },
    /** Resolves once every room open now is released. */
    async released(): Promise<void> {
      earlier = [...earlier, current].filter((g) => g.open > 0);
      current = new Generation();
      if (earlier.length) await Promise.all(earlier.map((g) => g.closed()));
    },
  };
}
