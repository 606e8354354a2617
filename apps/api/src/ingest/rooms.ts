import type { AnalyticsRows, AnalyticsTable, IngestBuffer } from './buffer.ts';

/** Room held in the write buffer for rows built after the answer (see `Ingest.holdRoom`). */
export interface IngestRoom {
  /** Queues rows of one table within the room. */
  enqueueMany<T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): void;
  /** Gives back the room not used; call it once, whatever happened (`flushNow` and `stop` wait for it). */
  release(): void;
}

/**
 * The rooms a node holds open: each is rows already answered for and about to be queued, so a flush
 * asked for now (a test, the bench, shutdown) first waits for every room open at that moment to be released.
 */
export function openRooms(buffer: IngestBuffer, onQueued: (rows: number) => void) {
  let open = 0;
  let waiting: (() => void)[] = [];
  return {
    /** Room for up to `rows` rows (`BufferFull` when there is none), or null when the buffer cannot hold room ahead. */
    hold(rows: number): IngestRoom | null {
      const room = buffer.holdRoom?.(rows);
      if (!room) return null;
      open++;
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
          if (--open > 0) return;
          const done = waiting;
          waiting = [];
          for (const resolve of done) resolve();
        },
      };
    },
    /** Resolves once no room is open. */
    released(): Promise<void> {
      return open === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
    },
  };
}
