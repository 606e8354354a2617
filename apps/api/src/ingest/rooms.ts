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
 * asked for now (a test, the bench, shutdown) first waits for the rooms open at that moment (not for
 * rooms opened later: a steady stream of reports never holds a flush up).
 */
export function openRooms(buffer: IngestBuffer, onQueued: (rows: number) => void) {
  const open = new Set<Promise<void>>();
  return {
    /** Room for up to `rows` rows (`BufferFull` when there is none), or null when the buffer cannot hold room ahead. */
    hold(rows: number): IngestRoom | null {
      const room = buffer.holdRoom?.(rows);
      if (!room) return null;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      open.add(released);
      return {
        enqueueMany(table, queued) {
          room.enqueue(table, queued);
          onQueued(queued.length);
        },
        release() {
          if (!open.delete(released)) return;
          room.release();
          release();
        },
      };
    },
    /** Resolves once every room open now is released. */
    async released(): Promise<void> {
      if (open.size) await Promise.all([...open]);
    },
  };
}
