// Counting one site-day's rollup rows in this process from a stream of the day's narrow rows
// (rollup-streams.ts says what each column holds). Dimension values are numbered once per stream
// (Interner), so a grouping finds its tally by array index, and rows of one visitor arrive together,
// so a tally counts a distinct visitor the moment their first row reaches it (it keeps which visitor it
// saw last). PostgreSQL's hash aggregation of the same groupings cost an executor node per row and grouping
// (docs/performance/history.md, "The rollup's 1 s goal").
import { PAIR_SEPARATOR } from '../catalogue.ts';
import type { RollupRow } from './rollup-format.ts';

/** Numbers the distinct values of one column: `id(value)`, and `values[id]` back. */
export class Interner {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  private last: string | null = null;
  private lastId = -1;

  id(value: string): number {
    // Rows of a visitor repeat most values (source, country, device…): compare with the last one first.
    if (value === this.last) return this.lastId;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    this.last = value;
    this.lastId = id;
    return id;
  }
}

/** A grouping of a stream's rows: the day total (no columns), one column, or a pair (value `a\x1fb`). */
export interface TallyGrouping {
  dimension: string;
  /** Indexes into the row's dimension ids (EXIT_COLUMN: the visit's exit path, exit groupings only). */
  columns: readonly number[];
}

/** Stands for a visit's exit path among a grouping's columns. */
export const EXIT_COLUMN = -1;

/**
 * What one grouping value's rows add up to, in one lane. `n`/`v`: rows and distinct visitors of the
 * table's first and second metric set (each through its row filter); `searched`/`searchedV`: sessions
 * from a search engine and their visitors; `single`: visitors with exactly one row of the first set;
 * leave and event-value sums with how many rows carry one. `run`: the visitor the tally saw last (StreamTally's
 * count of visitors), `r*`: that visitor's rows here (a visitor's second row takes back their `single`).
 */
export class Tally {
  n0 = 0;
  v0 = 0;
  n1 = 0;
  v1 = 0;
  searched = 0;
  searchedV = 0;
  single = 0;
  scrollSum = 0;
  scrollN = 0;
  msSum: number | bigint = 0;
  msN = 0;
  centsSum: number | bigint = 0;
  centsN = 0;
  run = -1;
  r0 = 0;
  r1 = 0;
  rs = 0;
}

/**
 * The most values (tallies over its lanes) a pair keeps for one site-day. Past it the pair is no summary any
 * more (a day of 20,000 pages gave 128k rows of countries by page alone; docs/performance/history.md, "A day of
 * many pages, probed"): it stops counting and the day's rollup leaves it out (`rollup_days.omitted_pairs`), so
 * questions needing it read that day's raw rows.
 */
export const PAIR_VALUES_PER_DAY = 20_000;

/**
 * The most values (tallies over their lanes) the single groupings of one site-day keep together (pairs have
 * their own bound, PAIR_VALUES_PER_DAY, each). Strangers choose paths, referrers and custom properties: one
 * address may send 600 reports a minute of new paths, and a grouping's values grew without bound until the
 * rollup thread ran out of heap on every try. Past this bound the grouping holding the most values stops
 * counting, as a pair past its own bound does (its heap: docs/performance/history.md, "The values a day's
 * rollup keeps").
 */
export const VALUES_PER_DAY = 100_000;

/** The values a site-day's single groupings may still take, shared by its streams (`VALUES_PER_DAY`). */
export class ValueBudget {
  private readonly holders: GroupingTallies[] = [];

  constructor(public left = VALUES_PER_DAY) {}

  /** Counts `g`'s values against the budget. */
  join(g: GroupingTallies) {
    this.holders.push(g);
  }

  /** Past the budget: the grouping holding the most values stops counting and gives its values back (never the day total). */
  shed() {
    let largest: GroupingTallies | undefined;
    for (const g of this.holders) {
      if (g.overflowed || g.grouping.dimension === '') continue;
      if (largest === undefined || g.size > largest.size) largest = g;
    }
    largest?.overflow();
  }
}

/** Where the rows of a grouping that stopped counting go (never written). */
const DISCARDED = new Tally();

/** The tallies of one grouping, found by lane and value ids; the last one found is kept at hand. */
class GroupingTallies {
  /** [lane][a] → tally (one column or the day total, a = 0), or → tallies by b (pairs). */
  private readonly byLane: (Tally | Map<number, Tally>)[][] = [];
  private lastLane = -1;
  private lastA = -1;
  private lastB = -1;
  private last: Tally = new Tally();
  readonly a: number;
  readonly b: number;
  readonly pair: boolean;
  /** Tallies made so far. */
  size = 0;
  /** Past PAIR_VALUES_PER_DAY (a pair), or shed by the day's budget (a single): it counts nothing more and writes no rows. */
  overflowed = false;

  constructor(
    readonly grouping: TallyGrouping,
    private readonly budget: ValueBudget,
  ) {
    this.a = grouping.columns[0] ?? -2;
    this.b = grouping.columns[1] ?? -2;
    this.pair = grouping.columns.length === 2;
    if (!this.pair) budget.join(this);
  }

  of(lane: number, ia: number, ib: number): Tally {
    if (lane === this.lastLane && ia === this.lastA && ib === this.lastB) return this.last;
    let values = this.byLane[lane];
    if (values === undefined) {
      values = [];
      this.byLane[lane] = values;
    }
    let t: Tally | Map<number, Tally> | undefined = values[ia];
    if (this.pair) {
      let inner = t as Map<number, Tally> | undefined;
      if (inner === undefined) {
        inner = new Map();
        values[ia] = inner;
      }
      t = inner.get(ib);
      if (t === undefined) {
        if (++this.size > PAIR_VALUES_PER_DAY) return this.overflow();
        t = new Tally();
        inner.set(ib, t);
      }
    } else if (t === undefined) {
      if (!this.spend()) return DISCARDED;
      t = new Tally();
      values[ia] = t;
    }
    this.lastLane = lane;
    this.lastA = ia;
    this.lastB = ib;
    this.last = t as Tally;
    return this.last;
  }

  /** Takes one value of a single grouping from the day's budget; false when this grouping was shed to make room. */
  private spend(): boolean {
    this.size++;
    if (--this.budget.left < 0) this.budget.shed();
    return !this.overflowed;
  }

  /** Drops the grouping's tallies and gives a single's values back: from here on it counts nothing. */
  overflow(): Tally {
    if (!this.overflowed && !this.pair) this.budget.left += this.size;
    this.overflowed = true;
    this.size = 0;
    this.byLane.length = 0;
    this.lastLane = -1;
    return DISCARDED;
  }

  /** Every tally with its lane index and value ids (-1 where the grouping has no such column). */
  *entries(): Generator<[number, number, number, Tally]> {
    if (this.overflowed) return;
    for (let lane = 0; lane < this.byLane.length; lane++) {
      const values = this.byLane[lane];
      if (values === undefined) continue;
      for (let ia = 0; ia < values.length; ia++) {
        const t = values[ia];
        if (t === undefined) continue;
        if (t instanceof Map) for (const [ib, pair] of t) yield [lane, ia, ib, pair];
        else yield [lane, ia, -1, t];
      }
    }
  }
}

/** Which metric set a tally's sums are written as: [metric set, count, visitors]. */
export type Emit = readonly [string, (t: Tally) => number | bigint, (t: Tally) => number];

/** The rows a pageviews grouping writes (sets pageviews and sessions counted in one pass). */
export const PAGEVIEW_ROWS: readonly Emit[] = [
  ['pageviews', (t) => t.n0, (t) => t.v0],
  ['sessions', (t) => t.n1, (t) => t.v1],
  ['search_sessions', (t) => t.searched, (t) => t.searchedV],
  ['single_page', (t) => t.single, (t) => t.single],
  ['leave_scroll', (t) => t.scrollSum, (t) => t.scrollN],
  ['leave_ms', (t) => t.msSum, (t) => t.msN],
];
/** The rows an exit grouping writes: visits counted at their exit page. */
const EXIT_ROWS: readonly Emit[] = [['sessions', (t) => t.n1, (t) => t.v1]];
export const EVENT_ROWS: readonly Emit[] = [
  ['events', (t) => t.n0, (t) => t.v0],
  ['event_value', (t) => t.centsSum, (t) => t.centsN],
];
export const REQUEST_ROWS: readonly Emit[] = [['requests', (t) => t.n0, () => 0]];

/** A sum that stays exact past 2^53 (event values in hundredths, visible milliseconds can add up that far). */
export function addExact(sum: number | bigint, x: number | bigint): number | bigint {
  if (typeof sum === 'bigint' || typeof x === 'bigint') return BigInt(sum) + BigInt(x);
  const s = sum + x;
  return Number.isSafeInteger(s) ? s : BigInt(sum) + BigInt(x);
}

/** One row as the tallies take it: which sets it counts in, and its sums (NaN: the row has none). */
export interface TallyRow {
  lane: number;
  /** The row's dimension value ids, by column. */
  ids: Int32Array;
  in0: number;
  in1: number;
  searched: number;
  scroll: number;
  ms: number | bigint;
  cents: number;
}

/** Counts the rows of one stream (one table, or one part of its visitors) by its groupings. */
export class StreamTally {
  private readonly groupings: GroupingTallies[];
  private readonly exits: GroupingTallies[];
  private run = 0;

  /** `lanes` and `columns`: the stream's interners, to write values back; `visitors`: rows come by visitor. */
  constructor(
    private readonly lanes: Interner,
    private readonly columns: Interner[],
    groupings: readonly TallyGrouping[],
    private readonly emits: readonly Emit[],
    private readonly visitors: boolean,
    exitGroupings: readonly TallyGrouping[] = [],
    /** The column whose interner numbers exit paths (the page's path). */
    private readonly exitColumn = -1,
    /** The site-day's budget of values, shared with its other streams. */
    budget = new ValueBudget(),
  ) {
    this.groupings = groupings.map((g) => new GroupingTallies(g, budget));
    this.exits = exitGroupings.map((g) => new GroupingTallies(g, budget));
  }

  /** Adds one row of the stream. */
  add(r: TallyRow) {
    const ids = r.ids;
    for (const g of this.groupings) {
      if (g.overflowed) continue;
      const t = g.of(r.lane, g.a < 0 ? 0 : (ids[g.a] as number), g.b < 0 ? 0 : (ids[g.b] as number));
      t.n0 += r.in0;
      t.n1 += r.in1;
      t.searched += r.searched;
      if (!Number.isNaN(r.scroll)) {
        t.scrollSum += r.scroll;
        t.scrollN++;
      }
      if (typeof r.ms === 'bigint' || !Number.isNaN(r.ms)) {
        t.msSum = addExact(t.msSum, r.ms);
        t.msN++;
      }
      if (!Number.isNaN(r.cents)) {
        t.centsSum = addExact(t.centsSum, r.cents);
        t.centsN++;
      }
      if (this.visitors) this.touch(t, r.in0, r.in1, r.searched);
    }
  }

  /** Adds one visit at its exit page: `lane` and `ids` are those of the row that began it. */
  addVisit(lane: number, ids: Int32Array, exitId: number) {
    for (const g of this.exits) {
      if (g.overflowed) continue;
      const a = g.a === EXIT_COLUMN ? exitId : (ids[g.a] as number);
      const b = g.b === EXIT_COLUMN ? exitId : g.b < 0 ? 0 : (ids[g.b] as number);
      const t = g.of(lane, a, b);
      t.n1++;
      this.touch(t, 0, 1, 0);
    }
  }

  /** Marks the current visitor on `t`: counted once for each set the moment their rows there first reach it. */
  private touch(t: Tally, in0: number, in1: number, searched: number) {
    if (t.run !== this.run) {
      t.run = this.run;
      t.r0 = 0;
      t.r1 = 0;
      t.rs = 0;
    }
    if (in0 !== 0) {
      const was = t.r0;
      t.r0 = was + in0;
      if (was === 0) {
        t.v0++;
        if (t.r0 === 1) t.single++;
      } else if (was === 1) t.single--;
    }
    if (in1 !== 0) {
      if (t.r1 === 0) t.v1++;
      t.r1 += in1;
    }
    if (searched !== 0) {
      if (t.rs === 0) t.searchedV++;
      t.rs += searched;
    }
  }

  /** The next rows are another visitor's (each tally has counted the last one as their rows came). */
  endVisitor() {
    this.run++;
  }

  /** The groupings that had too many values to keep (PAIR_VALUES_PER_DAY, VALUES_PER_DAY): their rows are not among `rows()`. */
  omitted(): string[] {
    return [...this.groupings, ...this.exits].filter((g) => g.overflowed).map((g) => g.grouping.dimension);
  }

  /** The rollup rows counted (rows with nothing counted are left out, as the SQL rollup did). */
  rows(): RollupRow[] {
    this.endVisitor();
    const out: RollupRow[] = [];
    const text = (column: number, id: number) =>
      ((column === EXIT_COLUMN ? this.columns[this.exitColumn] : this.columns[column]) as Interner).values[id] as string;
    const write = (tallies: GroupingTallies[], emits: readonly Emit[]) => {
      for (const g of tallies) {
        for (const [lane, ia, ib, t] of g.entries()) {
          const value = g.a === -2 ? '' : g.pair ? `${text(g.a, ia)}${PAIR_SEPARATOR}${text(g.b, ib)}` : text(g.a, ia);
          for (const [set, count, visitors] of emits) {
            const c = count(t);
            const v = visitors(t);
            if (c > 0 || v > 0) {
              const laneName = this.lanes.values[lane] as string;
              out.push({
                metric_set: set,
                dimension: g.grouping.dimension,
                value,
                lane: laneName,
                count: c.toString(),
                visitors: v,
              });
            }
          }
        }
      }
    };
    write(this.groupings, this.emits);
    write(this.exits, EXIT_ROWS);
    return out;
  }
}
