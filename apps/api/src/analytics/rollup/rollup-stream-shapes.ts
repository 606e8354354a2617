// The statements of a site-day's rollup streams (rollup-streams.ts reads them): for each raw table, the
// columns PostgreSQL evaluates from the catalogue's expressions, where each sits in a row, the groupings
// the tallies count, and the order that numbers visits.
import type { MetricSet } from '@us/shared';
import { CATALOGUE, EVENT_CENTS_SQL, ROLLUP_PAIRS, rollupDimensions } from '../catalogue.ts';
import { EXIT_DIMENSIONS, namesExit, VISIT_ORDER } from '../exit-paths.ts';
import { inline } from './copy-connections.ts';
import { keptDimensions } from './kept-properties.ts';
import type { RollupSource } from './rollup-format.ts';
import { type Emit, EVENT_ROWS, EXIT_COLUMN, PAGEVIEW_ROWS, REQUEST_ROWS, type TallyGrouping } from './rollup-tally.ts';

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
export const partOf = (k: number, parts: number) => (parts > 1 ? ` and (hashtext(visitor) & 2147483647) % ${parts} = ${k}` : '');

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
  /** Whether the last rollup counted the row (incremental rollups: `RollupSource.counted`). */
  counted: number;
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
  counted: -1,
};

/** A stream's statement shape: fixed columns (their layout), then dimension columns, and its groupings. */
export interface StreamShape {
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
// decided in rollup-streams.ts, once per referrer host (isSearchReferrer): PostgreSQL's regular expressions
// (SEARCH_REFERRER_SQL) cost more per row, and more again on a connection's first use of them.
export const PAGEVIEWS: StreamShape = (() => {
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
export const PATH_COLUMN = PAGEVIEWS.exprs.indexOf(`coalesce((path)::text, '')`);
if (PATH_COLUMN < 0) throw new Error('the pageviews stream lacks the path');
/** The referrer's host among the pageviews' dimensions (whether a visit came from search). */
export const REFERRER_COLUMN = PAGEVIEWS.exprs.indexOf(`coalesce((referrer_host)::text, '')`);
if (REFERRER_COLUMN < 0) throw new Error('the pageviews stream lacks the referrer host');

export const EVENTS: StreamShape = {
  table: 'events',
  fixed: ['lane', 'visitor', ...filtersOf('events'), `case when ${CATALOGUE.events.rowFilter} then ${EVENT_CENTS_SQL} end`],
  layout: { ...NONE, visitor: 1, filters: [2], cents: 3 },
  ...groupingsOf('events', () => true),
  exits: [],
  emits: EVENT_ROWS,
};
export const REQUESTS: StreamShape = {
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
export function withProperties(shape: StreamShape, keys: readonly string[] | undefined): StreamShape {
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

export const copy = (select: string) => `copy (${select}) to stdout`;

/** The COPY statement of a stream over the day's rows (`part`: the pageviews of some visitors). */
export function statementOf(shape: StreamShape, src: RollupSource, part = ''): string {
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

/** A stream's shape with the column saying whether the last rollup counted each row, when `counted` is given. */
export function withCounted(shape: StreamShape, counted: string | undefined): StreamShape {
  if (counted === undefined) return shape;
  return { ...shape, fixed: [...shape.fixed, `(${counted})`], layout: { ...shape.layout, counted: shape.fixed.length } };
}
