// One site-day's rollup rows (format: the header of stats/catalogue.ts), counted in this process from
// COPY streams of the day's narrow rows: PostgreSQL evaluates the catalogue's expressions and sorts the
// pageviews by visitor in the order that numbers visits; this module sums the leave reports per
// pageview, numbers each visitor-day's visits and finds their exits, and rollup-tally.ts groups the rows.
// The pageviews can be split into `parts` streams by a hash of the visitor code (disjoint visitors, so
// their counts add up), each on a connection of its own; one stream is the default, as the counting here,
// not PostgreSQL's sorting, sets the pace (docs/performance/history.md, "One pageviews stream").
// Also used by the demo generator on its staging tables. The streams' statements: rollup-stream-shapes.ts.
// (Joined and numbered in PostgreSQL, its streams took longer: docs/performance/history.md, "The rollup's 1 s goal";
// here they cost a map of the day's leave reports and a pass per visitor-day.)
import { isSearchReferrer, SUMMARY_ROLLUP_MEASURES } from '../catalogue.ts';
import { type CopyOut, type CopyStream, inline, sqlLiteral } from './copy-connections.ts';
import { type CopyFields, forEachCopyRow } from './copy-rows.ts';
import { type CountedRows, type RollupRow, type RollupSource, rollupRowKey } from './rollup-format.ts';
import { LeaveSums } from './rollup-leaves.ts';
import {
  copy,
  EVENTS,
  PAGEVIEWS,
  PATH_COLUMN,
  partOf,
  REFERRER_COLUMN,
  REQUESTS,
  type StreamShape,
  statementOf,
  withCounted,
  withProperties,
} from './rollup-stream-shapes.ts';
import { Interner, StreamTally, type TallyRow, VALUES_PER_DAY, ValueBudget } from './rollup-tally.ts';
import { VisitExits } from './rollup-visits.ts';

const numberOr = (v: string | null | undefined) => (v === null || v === undefined ? Number.NaN : Number(v));

/**
 * One count a stream's rows feed: its tally, the leave reports its pageviews look up, and whether it takes only the
 * rows the last rollup counted (an incremental rollup's "before": rollup-delta.ts).
 */
interface Count {
  leaves: LeaveSums;
  budget: ValueBudget;
  countedOnly: boolean;
}

/** What reads a stream's rows into one count: `take` adds a row (its values already in `row`), `rows` ends the count. */
interface CountReader {
  take(f: CopyFields, row: TallyRow): void;
  rows(omitted: Set<string>): RollupRow[];
}

/** A count's reader; its tally shares the stream's interned values. Constants captured, as the rows' hot path wants. */
function countReader(count: Count, shape: StreamShape, lanes: Interner, columns: Interner[]): CountReader {
  const L = shape.layout;
  const leaves = count.leaves;
  const tally = new StreamTally(
    lanes,
    columns,
    shape.groupings,
    shape.emits,
    L.visitor >= 0,
    shape.exits,
    PATH_COLUMN,
    count.budget,
  );
  const visits = L.start >= 0 ? new VisitExits(tally, PATH_COLUMN) : null;
  let started = false;
  let visitor: string | null = null;
  return {
    take(f, row) {
      if (visits) visits.next(f[L.visitor] as string, f[L.day] as string);
      if (L.visitor >= 0 && (!started || f[L.visitor] !== visitor)) {
        if (started) tally.endVisitor();
        started = true;
        visitor = f[L.visitor] as string | null;
      }
      if (L.pageviewId >= 0) {
        const leave = leaves.of(f[L.pageviewId] as string);
        row.scroll = leave < 0 ? Number.NaN : leaves.scrollOf(leave);
        row.ms = leave < 0 ? Number.NaN : leaves.msOf(leave);
        if (leave >= 0 && f[L.lane] === 'human') leaves.countVisible(leave);
      }
      tally.add(row);
      if (visits) visits.take(row, f[L.at] as string, f[L.pageviewId] as string, f[L.start] === 't');
    },
    rows(omitted) {
      visits?.flush();
      for (const pair of tally.omitted()) omitted.add(pair);
      return tally.rows();
    },
  };
}

/**
 * Reads one stream's rows once into a tally per count (their interned values shared); resolves with each count's
 * rollup rows. Pageviews wait for the counts' leave reports.
 */
async function readStream(
  shape: StreamShape,
  stream: AsyncIterable<Buffer>,
  counts: readonly Count[],
  omitted: Set<string>,
): Promise<RollupRow[][]> {
  const L = shape.layout;
  const base = shape.fixed.length;
  const dims = shape.exprs.length;
  const lanes = new Interner();
  const columns = Array.from({ length: dims }, () => new Interner());
  const readers = counts.map((c) => countReader(c, shape, lanes, columns));
  // One count of every row (a whole day's): no per-row choice of counts.
  const only = counts.length === 1 && !counts[0]?.countedOnly ? (readers[0] as CountReader) : null;
  const row: TallyRow = {
    lane: 0,
    ids: new Int32Array(dims),
    in0: 0,
    in1: 0,
    searched: 0,
    scroll: Number.NaN,
    ms: Number.NaN,
    cents: Number.NaN,
  };
  const [f0 = -1, f1 = -1] = L.filters;
  // Whether a referrer host (by its id) is a search engine's, decided once per host (a null host reads '': neither is).
  const searchHosts: boolean[] = [];
  const fromSearch = (channel: string | null, host: number) => {
    if (channel !== null) return isSearchReferrer(channel, null);
    let yes = searchHosts[host];
    if (yes === undefined) {
      yes = isSearchReferrer(null, (columns[REFERRER_COLUMN] as Interner).values[host] as string);
      searchHosts[host] = yes;
    }
    return yes;
  };
  if (L.pageviewId >= 0) await Promise.all(counts.map((c) => c.leaves.done));
  await forEachCopyRow(stream, (f) => {
    row.lane = lanes.id(f[L.lane] as string);
    for (let c = 0; c < dims; c++) row.ids[c] = (columns[c] as Interner).id(f[base + c] as string);
    row.in0 = f0 >= 0 && f[f0] === 't' ? 1 : 0;
    row.in1 = f1 >= 0 && f[f1] === 't' ? 1 : 0;
    row.searched =
      L.channel >= 0 && f[L.start] === 't' && fromSearch(f[L.channel] as string | null, row.ids[REFERRER_COLUMN] as number)
        ? 1
        : 0;
    row.cents = L.cents >= 0 ? numberOr(f[L.cents]) : Number.NaN;
    if (only) return only.take(f, row);
    const counted = L.counted >= 0 && f[L.counted] === 't';
    for (let k = 0; k < readers.length; k++) {
      if (counted || !(counts[k] as Count).countedOnly) (readers[k] as CountReader).take(f, row);
    }
  });
  return readers.map((r) => r.rows(omitted));
}

/** Rows of several streams of one day as one set: counts of the same row added (parts have disjoint visitors). */
function merged(parts: RollupRow[][]): RollupRow[] {
  const out = new Map<string, RollupRow>();
  for (const rows of parts) {
    for (const r of rows) {
      const key = rollupRowKey(r);
      const had = out.get(key);
      if (!had) out.set(key, r);
      else {
        had.count = (BigInt(had.count) + BigInt(r.count)).toString();
        had.visitors = Number(had.visitors) + Number(r.visitors);
      }
    }
  }
  return [...out.values()];
}

/** Metric set `summary` (lane human, value ''): from the day totals' human rows and the visible time. */
function summaryRows(rows: RollupRow[], leaves: LeaveSums): RollupRow[] {
  const total = (set: string) => rows.find((r) => r.metric_set === set && r.dimension === '' && r.lane === 'human');
  const search = total('search_sessions');
  const single = total('single_page');
  const values: Record<(typeof SUMMARY_ROLLUP_MEASURES)[number], [string | number | bigint, number]> = {
    from_search: [search?.count ?? 0, Number(search?.visitors ?? 0)],
    single_page: [single?.count ?? 0, Number(single?.visitors ?? 0)],
    visible_ms: [leaves.visibleMs, 0],
  };
  return SUMMARY_ROLLUP_MEASURES.map((m) => ({
    metric_set: 'summary',
    dimension: m,
    value: '',
    lane: 'human',
    count: String(values[m][0]),
    visitors: values[m][1],
  }));
}

/**
 * Every rollup row of one site-day: the leave reports, the pageviews in `parts` streams (split by visitor),
 * then events and requests, read through `copyOut` up to `atOnce` at a time. Every stream started is read
 * to its end, or the first failure is thrown once all have stopped. Groupings with too many values
 * (PAIR_VALUES_PER_DAY for a pair, `valuesPerDay` for the day's groupings together) are left out and named in
 * `omitted`.
 */
export async function tallySiteDay(
  src: RollupSource,
  copyOut: CopyOut,
  atOnce = 1,
  parts = 1,
  omitted = new Set<string>(),
  valuesPerDay = VALUES_PER_DAY,
): Promise<RollupRow[]> {
  const [rows] = await tallyCounts(src, [count(valuesPerDay, false)], copyOut, atOnce, parts, omitted);
  return rows as RollupRow[];
}

/**
 * An incremental rollup's two counts from one read of the recounted visitors' rows (rollup-delta.ts): `before`,
 * the rows and leave reports the last rollup counted (`src.counted`), and `after`, all of them. Each has the
 * day's budget of values; groupings either leaves out are named in `omitted`.
 */
export async function tallyDelta(
  src: RollupSource & { counted: CountedRows },
  copyOut: CopyOut,
  atOnce = 1,
  omitted = new Set<string>(),
  valuesPerDay = VALUES_PER_DAY,
): Promise<{ before: RollupRow[]; after: RollupRow[] }> {
  const counts = [count(valuesPerDay, true), count(valuesPerDay, false)];
  const [before, after] = await tallyCounts(src, counts, copyOut, atOnce, 1, omitted);
  return { before: before as RollupRow[], after: after as RollupRow[] };
}

const count = (valuesPerDay: number, countedOnly: boolean): Count => ({
  leaves: new LeaveSums(),
  budget: new ValueBudget(valuesPerDay),
  countedOnly,
});

/** Reads the leave reports into each count's sums (a count of counted rows takes only those the last rollup counted). */
async function readLeaves(stream: AsyncIterable<Buffer>, counts: readonly Count[]) {
  try {
    await forEachCopyRow(stream, (f) => {
      const counted = f[3] === 't';
      for (const c of counts) if (!c.countedOnly || counted) c.leaves.add(f[0] as string, Number(f[1]), Number(f[2]));
    });
    for (const c of counts) c.leaves.ready();
  } catch (e) {
    for (const c of counts) c.leaves.fail(e);
    throw e;
  }
}

/**
 * The leave reports the pageviews look up: those of the pageviews' own days, and of the later days (`lateLeavesAfter`)
 * only those of the source's pageviews. The later days' reports are mostly the next days' pageviews' (107 of 613,975
 * on the bench's busiest day): reading them all took the rollup thread longer than PostgreSQL's sort of the pageviews
 * (docs/performance/history.md, "The late leave reports").
 */
function leaveStatement(src: RollupSource): string {
  const columns = `pageview_id, scroll_depth, time_on_page_ms, ${src.counted ? `(${src.counted.leaves})` : 'true'}`;
  const from = `from ${src.tables.page_leaves} l where ${inline(src.leavesWhere, src.leavesParams)}`;
  if (src.lateLeavesAfter === undefined) return copy(`select ${columns} ${from}`);
  const after = `${sqlLiteral(src.lateLeavesAfter)}::date`;
  const pageviews = `select pageview_id from ${src.tables.pageviews} where ${inline(src.where, src.whereParams)}`;
  return copy(`select ${columns} ${from} and l.day <= ${after}
    union all
    select ${columns} ${from} and l.day > ${after} and l.pageview_id in (${pageviews})`);
}

/** The rows of each count of `counts` (tallySiteDay, tallyDelta). */
async function tallyCounts(
  src: RollupSource,
  counts: readonly Count[],
  copyOut: CopyOut,
  atOnce: number,
  parts: number,
  omitted: Set<string>,
): Promise<RollupRow[][]> {
  const pageviews = withCounted(withProperties(PAGEVIEWS, src.keptProperties), src.counted?.rows);
  const events = withCounted(withProperties(EVENTS, src.keptProperties), src.counted?.rows);
  // The leave reports first: each pageviews stream waits for them (its statement already sorting meanwhile).
  const leaveSql = leaveStatement(src);
  const none = () => counts.map(() => [] as RollupRow[]);
  const streams: { sql: string; read: (s: AsyncIterable<Buffer>) => Promise<RollupRow[][]> }[] = [
    {
      sql: leaveSql,
      read: async (s) => {
        await readLeaves(s, counts);
        return none();
      },
    },
    ...Array.from({ length: parts }, (_, k) => ({
      sql: statementOf(pageviews, src, partOf(k, parts)),
      read: (s: AsyncIterable<Buffer>) => readStream(pageviews, s, counts, omitted),
    })),
    { sql: statementOf(events, src), read: (s) => readStream(events, s, counts, omitted) },
    // The last rollup's requests are not recounted (rollup-delta.ts): only the count of all rows takes them.
    {
      sql: statementOf(REQUESTS, src),
      read: async (s) => {
        const taking = counts.filter((c) => !c.countedOnly);
        const rows = await readStream(REQUESTS, s, taking, omitted);
        return counts.map((c) => (c.countedOnly ? [] : (rows[taking.indexOf(c)] as RollupRow[])));
      },
    },
  ];
  const results: RollupRow[][][] = new Array(streams.length);
  let next = 0;
  let failure: unknown = null;
  // A failure before the leave reports are read ends the pageview readers' wait too (handled there).
  for (const c of counts) c.leaves.done.catch(() => {});
  await Promise.all(
    Array.from({ length: Math.min(atOnce, streams.length) }, async () => {
      while (next < streams.length && failure === null) {
        const i = next++;
        const s = streams[i] as (typeof streams)[number];
        let stream: CopyStream | null = null;
        try {
          stream = await copyOut(s.sql);
          results[i] = await s.read(stream);
        } catch (e) {
          stream?.abandon();
          failure ??= e;
          for (const c of counts) c.leaves.fail(e);
        }
      }
    }),
  );
  if (failure !== null) throw failure;
  return counts.map((c, k) => {
    // A grouping one stream or part left out goes from every one's rows.
    const rows = merged(results.map((r) => r[k] as RollupRow[])).filter((r) => !omitted.has(r.dimension));
    return [...rows, ...summaryRows(rows, c.leaves)];
  });
}
