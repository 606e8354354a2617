// The visits of a visitor-day and their exit pages, for the rollup tallies (rollup-streams.ts).
import type { StreamTally, TallyRow } from './rollup-tally.ts';

/**
 * A visitor-day's visits, from its rows in the order that numbers them (exit-paths.ts): the rows up to
 * and including each session start (and its peers: rows of the same instant, start and pageview id)
 * number the visits, a row ends its visit when the next row starts one or none follows, and each
 * session-start row meets the rows ending its visit, as the exit-paths join does.
 */
export class VisitExits {
  private visitor: string | null = null;
  private day: string | null = null;
  /** The visitor-day's rows so far: lane, dimension ids, instant, pageview id, whether it starts a visit. */
  private n = 0;
  private readonly lanes: number[] = [];
  private readonly ids: Int32Array[] = [];
  private readonly ats: string[] = [];
  private readonly pageviews: string[] = [];
  private readonly starts: boolean[] = [];
  private readonly numbers: number[] = [];
  /** `pathColumn`: where the path is among a row's dimension ids (a visit's exit is its last path). */
  constructor(
    private readonly tally: StreamTally,
    private readonly pathColumn: number,
  ) {}

  /** Called with each row before the tally sees it: a new visitor-day ends the last one's visits. */
  next(visitor: string, day: string) {
    if (visitor === this.visitor && day === this.day) return;
    this.flush();
    this.visitor = visitor;
    this.day = day;
  }

  /** Keeps what the visits need of the row. */
  take(row: TallyRow, at: string, pageviewId: string, start: boolean) {
    const i = this.n++;
    if (i === this.ids.length) this.ids.push(new Int32Array(row.ids.length));
    (this.ids[i] as Int32Array).set(row.ids);
    this.lanes[i] = row.lane;
    this.ats[i] = at;
    this.pageviews[i] = pageviewId;
    this.starts[i] = start;
  }

  private peers(i: number, j: number) {
    return this.ats[i] === this.ats[j] && this.starts[i] === this.starts[j] && this.pageviews[i] === this.pageviews[j];
  }

  flush() {
    const n = this.n;
    // Visit numbers: session starts counted up to each row's last peer (the window's default frame).
    let count = 0;
    for (let i = 0; i < n; ) {
      let j = i;
      while (j + 1 < n && this.peers(j + 1, i)) j++;
      for (let k = i; k <= j; k++) if (this.starts[k]) count++;
      for (let k = i; k <= j; k++) this.numbers[k] = count;
      i = j + 1;
    }
    // Rows of one visit number follow one another: each start meets every row of its number that ends a visit.
    for (let i = 0; i < n; ) {
      let j = i;
      while (j + 1 < n && this.numbers[j + 1] === this.numbers[i]) j++;
      for (let st = i; st <= j; st++) {
        if (!this.starts[st]) continue;
        for (let e = i; e <= j; e++) {
          if (e + 1 < n && !this.starts[e + 1]) continue;
          const exit = (this.ids[e] as Int32Array)[this.pathColumn] as number;
          this.tally.addVisit(this.lanes[st] as number, this.ids[st] as Int32Array, exit);
        }
      }
      i = j + 1;
    }
    this.n = 0;
  }
}
