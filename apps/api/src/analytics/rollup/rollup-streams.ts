// One site-day's rollup rows (format: the header of stats/catalogue.ts), counted in this process from
// COPY streams of the day's narrow rows: PostgreSQL evaluates the catalogue's expressions and sorts the
// pageviews by visitor in the order that numbers visits; this module sums the leave reports per
// pageview, numbers each visitor-day's visits and finds their exits, and rollup-tally.ts groups the rows.
// The pageviews can be split into `parts` streams by a hash of the visitor code (disjoint visitors, so
// their counts add up), each on a connection of its own; one stream is the default, as the counting here,
// not PostgreSQL's sorting, sets the pace (docs/performance/history.md, "One pageviews stream").
// Also used by the demo generator on its staging tables.
// (Joined and numbered in PostgreSQL, its streams took longer: docs/performance/history.md, "The rollup's 1 s goal";
// here they cost a map of the day's leave reports and a pass per visitor-day.)
import type { MetricSet } from '@us/shared';
import {
  CATALOGUE,
  EVENT_CENTS_SQL,
  isSearchReferrer,
  ROLLUP_PAIRS,
  rollupDimensions,
  SUMMARY_ROLLUP_MEASURES,
} from '../catalogue.ts';
import { EXIT_DIMENSIONS, namesExit, VISIT_ORDER } from '../exit-paths.ts';
import { type CopyOut, type CopyStream, inline } from './copy-connections.ts';
import { forEachCopyRow } from './copy-rows.ts';
import { keptDimensions } from './kept-properties.ts';
import { type RollupRow, type RollupSource, rollupRowKey } from './rollup-format.ts';
import { LeaveSums } from './rollup-leaves.ts';
import {
  type Emit,
  EVENT_ROWS,
  EXIT_COLUMN,
  Interner,
  PAGEVIEW_ROWS,
  REQUEST_ROWS,
  StreamTally,
  type TallyGrouping,
  type TallyRow,
  VALUES_PER_DAY,
  ValueBudget,
} from './rollup-tally.ts';
import { VisitExits } from './rollup-visits.ts';

type Table = 'pageviews' | 'events' | 'requests';

/** The metric sets counted from a table's rows (at most two: tallies have two row counts). */
const setsOf = (table: Table) => (Object.keys(CATALOGUE) as MetricSet[]).filter((s) => CATALOGUE[s].table === table);
for (const table of ['pageviews', 'events', 'requests'] as const) {
  if (setsOf(table).length > 2) throw new Error(`rollup tallies count two metric sets per table: ${table} has more`);
}

/** The row filters of a table's metric sets, as columns ('t' or 'f'). */
const filtersOf = (table: Table) => setsOf(table).map((s) => `coalesce(${CATALOGUE[s].rowFilter ?? 'true'}, false)`);

/**
 * The dimension columns a stream needs for the groupings of `set` that `keep` takes (each distinct
 * expression once, as the text the SQL rollup grouped by), and those groupings as column indexes.
 */
function groupingsOf(set: MetricSet, keep: (names: string[]) => boolean, exprs: string[] = []) {
  const dims = CATALOGUE[set].dimensions;
  const column = (dimension: string): number => {
    if (EXIT_DIMENSIONS.has(dimension)) return EXIT_COLUMN;
    const sql = `coalesce((${dims[dimension]?.sql as string})::text, '')`;
    if (!exprs.includes(sql)) exprs.push(sql);
    return exprs.indexOf(sql);
  };
  const singles = rollupDimensions(set)
    .filter((d) => keep([d]))
    .map((d) => ({ dimension: d, columns: [column(d)] }));
  const pairs = (ROLLUP_PAIRS[set] ?? [])
    .filter(([a, b]) => keep([a, b]))
    .map(([a, b]) => ({ dimension: `${a}|${b}`, columns: [column(a), column(b)] }));
  const groupings: TallyGrouping[] = [...(keep([]) ? [{ dimension: '', columns: [] }] : []), ...singles, ...pairs];
  return { groupings, exprs };
}

/** The visitors of part `k` of `parts` (by a hash of the code), or every row. */
const partOf = (k: number, parts: number) => (parts > 1 ? ` and (hashtext(visitor) & 2147483647) % ${parts} = ${k}` : '');

/** Visitors grouped together (their order does not matter: C is the cheapest to sort by). */
const BY_VISITOR = 'visitor collate "C"';

/** Where a stream's columns are (-1: it has no such column); its dimensions follow the last one. */
interface Layout {
  lane: number;
  visitor: number;
  filters: readonly number[];
  /** Pageviews only: the stored channel, which with the referrer's host says whether a visit came from search. */
  channel: number;
  cents: number;
  /** Pageviews only: the pageview's id (its leave reports), the UTC day, the instant, whether the row began a visit. */
  pageviewId: number;
  day: number;
  at: number;
  start: number;
}
const NONE: Layout = {
  lane: 0,
  visitor: -1,
  filters: [],
  channel: -1,
  cents: -1,
  pageviewId: -1,
  day: -1,
  at: -1,
  start: -1,
};

/** A stream's statement shape: fixed columns (their layout), then dimension columns, and its groupings. */
interface StreamShape {
  table: Table;
  fixed: string[];
  layout: Layout;
  exprs: string[];
  groupings: TallyGrouping[];
  exits: TallyGrouping[];
  emits: readonly Emit[];
}

// Pageviews: lane, visitor, UTC day, session start, the stored channel, the pageview's id, the instant,
// then the two sets' row filters; in the order that numbers a visitor-day's visits. "From search" is
// decided here, once per referrer host (isSearchReferrer): PostgreSQL's regular expressions
// (SEARCH_REFERRER_SQL) cost more per row, and more again on a connection's first use of them.
const PAGEVIEWS: StreamShape = (() => {
  const fixed = ['lane', 'visitor', 'day', 'session_start', 'channel', 'pageview_id', 'at', ...filtersOf('pageviews')];
  const { groupings, exprs } = groupingsOf('pageviews', (names) => !namesExit(names));
  // Exit groupings name pageviews dimensions besides the exit page: the same columns.
  const exits = groupingsOf('sessions', namesExit, exprs).groupings;
  return {
    table: 'pageviews',
    fixed,
    layout: {
      ...NONE,
      visitor: 1,
      day: 2,
      start: 3,
      channel: 4,
      pageviewId: 5,
      at: 6,
      filters: [7, 8].slice(0, filtersOf('pageviews').length),
    },
    exprs,
    groupings,
    exits,
    emits: PAGEVIEW_ROWS,
  };
})();
/** The path's column among the pageviews' dimensions: a visit's exit page is its last pageview's path. */
const PATH_COLUMN = PAGEVIEWS.exprs.indexOf(`coalesce((path)::text, '')`);
if (PATH_COLUMN < 0) throw new Error('the pageviews stream lacks the path');
/** The referrer's host among the pageviews' dimensions (whether a visit came from search). */
const REFERRER_COLUMN = PAGEVIEWS.exprs.indexOf(`coalesce((referrer_host)::text, '')`);
if (REFERRER_COLUMN < 0) throw new Error('the pageviews stream lacks the referrer host');

const EVENTS: StreamShape = {
  table: 'events',
  fixed: ['lane', 'visitor', ...filtersOf('events'), `case when ${CATALOGUE.events.rowFilter} then ${EVENT_CENTS_SQL} end`],
  layout: { ...NONE, visitor: 1, filters: [2], cents: 3 },
  ...groupingsOf('events', () => true),
  exits: [],
  emits: EVENT_ROWS,
};
const REQUESTS: StreamShape = {
  table: 'requests',
  fixed: ['lane', ...filtersOf('requests')],
  layout: { ...NONE, filters: [1] },
  ...groupingsOf('requests', () => true),
  exits: [],
  emits: REQUEST_ROWS,
};

/**
 * A stream's shape with a `prop:<key>` grouping per kept key (kept-properties.ts), its value column after the
 * catalogue's (a row without the key counts under '', as a null value of any dimension does, so the values
 * add up to the day's totals). Pageviews (sessions too) and events carry properties.
 */
function withProperties(shape: StreamShape, keys: readonly string[] | undefined): StreamShape {
  const kept = keptDimensions(keys);
  if (!kept.length) return shape;
  const exprs = [...shape.exprs];
  const groupings = [...shape.groupings];
  for (const { dimension, sql } of kept) {
    exprs.push(`coalesce((${sql})::text, '')`);
    groupings.push({ dimension, columns: [exprs.length - 1] });
  }
  return { ...shape, exprs, groupings };
}

const copy = (select: string) => `copy (${select}) to stdout`;

/** The COPY statement of a stream over the day's rows (`part`: the pageviews of some visitors). */
function statementOf(shape: StreamShape, src: RollupSource, part = ''): string {
  const select = [...shape.fixed, ...shape.exprs].join(', ');
  const where =
    shape.table === 'requests' && src.requestsWhere !== undefined ? src.requestsWhere : inline(src.where, src.whereParams) + part;
  if (shape.table !== 'pageviews') {
    const order = shape.layout.visitor >= 0 ? ` order by ${BY_VISITOR}` : '';
    return copy(`select ${select} from ${src.tables[shape.table]} where ${where}${order}`);
  }
  return copy(`select ${select}
      from ${src.tables.pageviews}
      where ${where}
      order by ${BY_VISITOR}, day, ${VISIT_ORDER}`);
}

const numberOr = (v: string | null | undefined) => (v === null || v === undefined ? Number.NaN : Number(v));

/** Reads one stream's rows into a tally of its own; resolves with its rollup rows. Pageviews wait for the leave reports. */
async function readStream(
  shape: StreamShape,
  stream: AsyncIterable<Buffer>,
  leaves: LeaveSums,
  omitted: Set<string>,
  budget: ValueBudget,
): Promise<RollupRow[]> {
  const L = shape.layout;
  const base = shape.fixed.length;
  const dims = shape.exprs.length;
  const lanes = new Interner();
  const columns = Array.from({ length: dims }, () => new Interner());
  const tally = new StreamTally(lanes, columns, shape.groupings, shape.emits, L.visitor >= 0, shape.exits, PATH_COLUMN, budget);
  const visits = L.start >= 0 ? new VisitExits(tally, PATH_COLUMN) : null;
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
  if (L.pageviewId >= 0) await leaves.done;
  let started = false;
  let visitor: string | null = null;
  await forEachCopyRow(stream, (f) => {
    if (visits) visits.next(f[L.visitor] as string, f[L.day] as string);
    if (L.visitor >= 0 && (!started || f[L.visitor] !== visitor)) {
      if (started) tally.endVisitor();
      started = true;
      visitor = f[L.visitor] as string | null;
    }
    row.lane = lanes.id(f[L.lane] as string);
    for (let c = 0; c < dims; c++) row.ids[c] = (columns[c] as Interner).id(f[base + c] as string);
    row.in0 = f0 >= 0 && f[f0] === 't' ? 1 : 0;
    row.in1 = f1 >= 0 && f[f1] === 't' ? 1 : 0;
    row.searched =
      L.channel >= 0 && f[L.start] === 't' && fromSearch(f[L.channel] as string | null, row.ids[REFERRER_COLUMN] as number)
        ? 1
        : 0;
    row.cents = L.cents >= 0 ? numberOr(f[L.cents]) : Number.NaN;
    if (L.pageviewId >= 0) {
      const leave = leaves.of(f[L.pageviewId] as string);
      row.scroll = leave < 0 ? Number.NaN : leaves.scrollOf(leave);
      row.ms = leave < 0 ? Number.NaN : leaves.msOf(leave);
      if (leave >= 0 && f[L.lane] === 'human') leaves.countVisible(leave);
    }
    tally.add(row);
    if (visits) visits.take(row, f[L.at] as string, f[L.pageviewId] as string, f[L.start] === 't');
  });
  visits?.flush();
  for (const pair of tally.omitted()) omitted.add(pair);
  return tally.rows();
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
  const leaves = new LeaveSums();
  const budget = new ValueBudget(valuesPerDay);
  const pageviews = withProperties(PAGEVIEWS, src.keptProperties);
  const events = withProperties(EVENTS, src.keptProperties);
  // The leave reports first: each pageviews stream waits for them (its statement already sorting meanwhile).
  const leaveSql = copy(
    `select pageview_id, scroll_depth, time_on_page_ms from ${src.tables.page_leaves} l where ${inline(src.leavesWhere, src.leavesParams)}`,
  );
  const streams: { sql: string; read: (s: AsyncIterable<Buffer>) => Promise<RollupRow[]> }[] = [
    {
      sql: leaveSql,
      read: async (s) => {
        await leaves.read(s);
        return [];
      },
    },
    ...Array.from({ length: parts }, (_, k) => ({
      sql: statementOf(pageviews, src, partOf(k, parts)),
      read: (s: AsyncIterable<Buffer>) => readStream(pageviews, s, leaves, omitted, budget),
    })),
    { sql: statementOf(events, src), read: (s) => readStream(events, s, leaves, omitted, budget) },
    { sql: statementOf(REQUESTS, src), read: (s) => readStream(REQUESTS, s, leaves, omitted, budget) },
  ];
  const results: RollupRow[][] = new Array(streams.length);
  let next = 0;
  let failure: unknown = null;
  // A failure before the leave reports are read ends the pageview readers' wait too (handled there).
  leaves.done.catch(() => {});
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
          leaves.fail(e);
        }
      }
    }),
  );
  if (failure !== null) throw failure;
  // A grouping one stream or part left out goes from every one's rows.
  const rows = merged(results).filter((r) => !omitted.has(r.dimension));
  return [...rows, ...summaryRows(rows, leaves)];
}
