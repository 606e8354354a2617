// The day's leave reports summed per pageview, for the rollup tallies (rollup-streams.ts).
import { grown, IdNumbers } from './id-numbers.ts';
import { addExact } from './rollup-tally.ts';

/**
 * The leave reports that may belong to the day's pageviews, summed per pageview id (deepest scroll,
 * visible time), as the SQL rollup joined them to every pageview row with that id. The summary's
 * visible time counts each human pageview id once, however many rows carry it. A pageview's sums are
 * found by its id's number (id-numbers.ts), held in typed arrays.
 */
export class LeaveSums {
  visibleMs: number | bigint = 0;
  private readonly ids = new IdNumbers();
  /** Per id number: deepest scroll, visible ms, 1 once the visible time is in the summary (one cache line, mostly). */
  private sums = new Float64Array(1024 * 3);
  /** Visible time past 2^53 ms (a sum of many reports), kept exact. */
  private readonly bigMs = new Map<number, bigint>();
  private settle!: (ok: boolean, e?: unknown) => void;
  /** Resolves once the leave reports are read (pageview rows wait for it). */
  readonly done = new Promise<void>((resolve, reject) => {
    this.settle = (ok, e) => (ok ? resolve() : reject(e));
  });

  /** Ends the wait of pageview rows with `e` (a stream failed before the leave reports were read). */
  fail(e: unknown) {
    this.settle(false, e);
  }

  /** Ends the wait of pageview rows: every leave report is added. */
  ready() {
    this.settle(true);
  }

  /** Adds one leave report of pageview `id`. */
  add(id: string, scroll: number, ms: number) {
    const before = this.ids.size;
    const n = this.ids.add(id);
    const at = n * 3;
    if (n === before) {
      if (at === this.sums.length) this.sums = grown(this.sums);
      this.sums[at] = scroll;
      this.sums[at + 1] = ms;
      return;
    }
    this.sums[at] = Math.max(this.sums[at] as number, scroll);
    const sum = addExact(this.msOf(n), ms);
    if (typeof sum === 'bigint') this.bigMs.set(n, sum);
    else this.sums[at + 1] = sum;
  }

  /** The number of a pageview's leave sums, or -1 when it has no leave report. */
  of(pageviewId: string): number {
    return this.ids.find(pageviewId);
  }

  scrollOf(n: number): number {
    return this.sums[n * 3] as number;
  }

  msOf(n: number): number | bigint {
    if (this.bigMs.size !== 0) {
      const big = this.bigMs.get(n);
      if (big !== undefined) return big;
    }
    return this.sums[n * 3 + 1] as number;
  }

  countVisible(n: number) {
    if (this.sums[n * 3 + 2] === 1) return;
    this.sums[n * 3 + 2] = 1;
    this.visibleMs = addExact(this.visibleMs, this.msOf(n));
  }
}
