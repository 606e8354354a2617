// The day's leave reports summed per pageview, for the rollup tallies (rollup-streams.ts).
import { forEachCopyRow } from './copy-rows.ts';
import { addExact } from './rollup-tally.ts';

/** What a pageview's leave reports add up to; `counted`: its visible time is in the summary already. */
export interface Leave {
  scroll: number;
  ms: number | bigint;
  counted: boolean;
}

/**
 * The leave reports that may belong to the day's pageviews, summed per pageview id (deepest scroll,
 * visible time), as the SQL rollup joined them to every pageview row with that id. The summary's
 * visible time counts each human pageview id once, however many rows carry it.
 */
export class LeaveSums {
  visibleMs: number | bigint = 0;
  private readonly byPageview = new Map<string, Leave>();
  private settle!: (ok: boolean, e?: unknown) => void;
  /** Resolves once the leave reports are read (pageview rows wait for it). */
  readonly done = new Promise<void>((resolve, reject) => {
    this.settle = (ok, e) => (ok ? resolve() : reject(e));
  });

  /** Ends the wait of pageview rows with `e` (a stream failed before the leave reports were read). */
  fail(e: unknown) {
    this.settle(false, e);
  }

  async read(stream: AsyncIterable<Buffer>) {
    try {
      await forEachCopyRow(stream, (f) => {
        const id = f[0] as string;
        const scroll = Number(f[1]);
        const ms = Number(f[2]);
        const had = this.byPageview.get(id);
        if (!had) this.byPageview.set(id, { scroll, ms, counted: false });
        else {
          had.scroll = Math.max(had.scroll, scroll);
          had.ms = addExact(had.ms, ms);
        }
      });
      this.settle(true);
    } catch (e) {
      this.settle(false, e);
      throw e;
    }
  }

  of(pageviewId: string): Leave | undefined {
    return this.byPageview.get(pageviewId);
  }

  countVisible(leave: Leave) {
    if (leave.counted) return;
    leave.counted = true;
    this.visibleMs = addExact(this.visibleMs, leave.ms);
  }
}
