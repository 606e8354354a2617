// The visits of a visitor-day and their exit pages, for the rollup tallies (rollup-streams.ts).
import type { StreamTally, TallyRow } from './rollup-tally.ts';

/**
 * A visitor-day's visits, from its rows in the order that numbers them (exit-paths.ts, VISIT_ORDER), as the
 * exit-paths join finds them: a visit begins with a session start and its peers (rows of the same instant and
 * pageview id that start a session too, one after another), a row ends its visit when the next row starts one or
 * none follows, and each of the visit's starts meets each row that ends it. So a visit's ends are its starts but
 * the last (each followed by a start) and its last row, and only the visit's starts and its last path are kept:
 * memory per visit, not per row. (Keeping the visitor-day's rows cost ~330 B a row; one address's reports of a
 * day made a visitor-day of hundreds of thousands of rows: docs/performance/history.md, "A visitor of many rows".)
 */
export class VisitExits {
  private visitor: string | null = null;
  private day: string | null = null;
  /** The visit's start rows so far: their lanes and dimension ids (the arrays reused from visit to visit). */
  private starts = 0;
  private readonly startLanes: number[] = [];
  private readonly startIds: Int32Array[] = [];
  /** The first start's instant and pageview id: its peers share them (VISIT_ORDER puts an instant's starts first). */
  private peerAt: string | null = null;
  private peerPageview: string | null = null;
  /** The path id of the visit's last row so far. */
  private lastPath = -1;

  /** `pathColumn`: where the path is among a row's dimension ids (a visit's exit is its last path). */
  constructor(
    private readonly tally: StreamTally,
    private readonly pathColumn: number,
  ) {}

  /** Called with each row before the tally sees it: a new visitor-day ends the last one's visit. */
  next(visitor: string, day: string) {
    if (visitor === this.visitor && day === this.day) return;
    this.flush();
    this.visitor = visitor;
    this.day = day;
  }

  /** Takes the row's part in its visit: a start that is no peer of the visit's starts ends the visit and begins one. */
  take(row: TallyRow, at: string, pageviewId: string, start: boolean) {
    if (start) {
      if (this.starts === 0 || at !== this.peerAt || pageviewId !== this.peerPageview) {
        this.flush();
        this.peerAt = at;
        this.peerPageview = pageviewId;
      }
      const i = this.starts++;
      if (i === this.startIds.length) this.startIds.push(new Int32Array(row.ids.length));
      (this.startIds[i] as Int32Array).set(row.ids);
      this.startLanes[i] = row.lane;
    }
    this.lastPath = row.ids[this.pathColumn] as number;
  }

  /** Ends the visit: each start meets each end (rows before a visitor-day's first start are in no visit). */
  flush() {
    const k = this.starts;
    for (let st = 0; st < k; st++) {
      const lane = this.startLanes[st] as number;
      const ids = this.startIds[st] as Int32Array;
      for (let e = 0; e < k - 1; e++) this.tally.addVisit(lane, ids, (this.startIds[e] as Int32Array)[this.pathColumn] as number);
      this.tally.addVisit(lane, ids, this.lastPath);
    }
    this.starts = 0;
  }
}
