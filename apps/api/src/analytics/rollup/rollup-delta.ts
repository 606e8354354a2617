// Incremental rollups: a site-day rolled up before is brought up to date by recounting only the
// visitors with rows its last rollup did not see, instead of the whole day.
//
// Each raw row records the transaction that inserted it (`arrival`), and each rollup the snapshot it
// counted (`rollup_days.snapshot`): the last rollup saw exactly the rows before its `until` that its
// snapshot sees. Rollup rows add up over disjoint sets of visitors (rows, distinct visitors, visits,
// exits and sums are all per visitor; the pageviews' parts rely on it already), so with V the visitors
// who have a row the last rollup did not see:
//
//   day now = last rollup − (V's rows the last rollup saw) + (V's rows now)
//
// A pageview's leave reports count with every row carrying its id, and the summary's visible time once
// per id: so V also takes every visitor with a row carrying the id of an unseen row or leave report.
// Requests have no visitor: their unseen rows are simply added.
import { inline, sqlLiteral } from './copy-connections.ts';
import { dayConditions } from './moved-database.ts';
import { type CountedRows, type RollupRow, type RollupSource, rollupRowKey } from './rollup-format.ts';

/** What a site-day's last rollup counted: its rows before `until` that `snapshot` sees. */
export interface RolledState {
  /** The instant the rows reach: the day's end for a complete rollup. */
  until: string;
  /** The rollup counted the whole day (its record's `rolled_until` is null): rows arriving late are added to it. */
  complete?: boolean;
  snapshot: string;
  /** The PostgreSQL that took the snapshot (moved-database.ts), null when the rollup did not record it. */
  server: string | null;
  /** The pairs the day's rollup left out (rollup-tally.ts, PAIR_VALUES_PER_DAY): their deltas are not added. */
  omitted: readonly string[];
}

/** A row's arrival seen by `snapshot` (rows stored before arrivals were recorded: seen by all). */
export const seenBy = (snapshot: string, alias = '') =>
  `(${alias}arrival is null or pg_visible_in_snapshot(${alias}arrival, ${sqlLiteral(snapshot)}::pg_snapshot))`;

/** The rows of `src` (and its leave reports) that `snapshot` sees. */
export function seenSource(src: RollupSource, snapshot: string): RollupSource {
  return {
    ...src,
    where: `${src.where} and ${seenBy(snapshot)}`,
    requestsWhere: src.requestsWhere === undefined ? undefined : `${src.requestsWhere} and ${seenBy(snapshot)}`,
    leavesWhere: `${src.leavesWhere} and ${seenBy(snapshot, 'l.')}`,
  };
}

/**
 * A row's arrival not seen by `snapshot`. Every transaction before the snapshot's xmin had ended when
 * it was taken, so such a row arrived at or after it: the range lets an index on (site_id, arrival)
 * find the few unseen rows instead of testing each row of the day.
 */
const unseenBy = (snapshot: string, alias = '') => {
  const snap = `${sqlLiteral(snapshot)}::pg_snapshot`;
  // pg_snapshot_xmin is immutable: the planner folds it to a constant the index range can use.
  return `(${alias}arrival >= pg_snapshot_xmin(${snap}) and not pg_visible_in_snapshot(${alias}arrival, ${snap}))`;
};

/** Conditions of one day written out: its rows up to the new `until`, and those the last rollup counted. */
function conditions(src: RollupSource, last: RolledState, now: string) {
  const rows = `${inline(src.where, src.whereParams)} and ${seenBy(now)}`;
  const until = `${sqlLiteral(last.until)}::timestamptz`;
  return {
    rows,
    counted: `(at < ${until} and ${seenBy(last.snapshot)})`,
    // Not counted, written as two arms an index each can answer: after the last `until`, or arrived unseen.
    unseen: `${rows} and (at >= ${until} or ${unseenBy(last.snapshot)})`,
    leaves: `${inline(src.leavesWhere, src.leavesParams)} and ${seenBy(now, 'l.')}`,
  };
}

/**
 * Rows whose pageview id is among those `select` answers, found through the (site_id, pageview_id)
 * index: as an array, a few thousand ids are looked up instead of hashing the day's rows.
 */
const idIn = (select: string, alias = '') => `${alias}pageview_id = any(array(${select}))`;

/** The statement answering V: visitors with a row or a leave report the last rollup did not see, or sharing a pageview id with one. */
export function unseenVisitorsSql(src: RollupSource, last: RolledState, now: string): string {
  const c = conditions(src, last, now);
  const t = src.tables;
  return `with unseen as (select visitor, pageview_id from ${t.pageviews} where ${c.unseen}),
      ids as (
        select pageview_id from unseen
        union select l.pageview_id from ${t.page_leaves} l where ${c.leaves} and ${unseenBy(last.snapshot, 'l.')}
      )
    select visitor from unseen
    union select visitor from ${t.events} where ${c.unseen}
    union select visitor from ${t.pageviews} where ${c.rows} and ${idIn('select pageview_id from ids')}`;
}

/**
 * Whether a site-day has rows its last rollup did not see: rows of the day, or leave reports of its pageviews, that
 * arrived after it (a complete day's late rows: pending-late.ts). Each arm finds them through an index on
 * (site_id, arrival).
 */
export function lateRowsSql(src: RollupSource, last: Pick<RolledState, 'snapshot'>): string {
  const rows = inline(src.where, src.whereParams);
  const arms = dayConditions(src).map(([t, where]) => {
    // A leave report counts with its pageview's day: only those of the day's pageviews.
    const ofDay =
      t === 'page_leaves'
        ? ` and exists (select 1 from ${src.tables.pageviews} where ${rows} and pageview_id = l.pageview_id)`
        : '';
    return `exists (select 1 from ${src.tables[t]} l where ${where} and ${unseenBy(last.snapshot, 'l.')}${ofDay})`;
  });
  return `select ${arms.join(' or ')} as late`;
}

/** `visitors` as a SQL array (COPY takes no parameters). */
const textArray = (visitors: readonly string[]) =>
  visitors.length ? `array[${visitors.map(sqlLiteral).join(',')}]` : `'{}'::text[]`;

/**
 * The source the day is recounted from: the rows of `visitors` now, with the requests the last rollup did not
 * see, each row and leave report marked when the last rollup counted it (`counted`). The tallies count the two
 * from one read (rollup-streams.ts, `tallyDelta`): `before`, what the last rollup counted of these visitors
 * (no requests), and `after`, all of it.
 */
export function deltaSource(
  src: RollupSource,
  last: RolledState,
  now: string,
  visitors: readonly string[],
): RollupSource & { counted: CountedRows } {
  const c = conditions(src, last, now);
  const where = `${c.rows} and visitor = any(${textArray(visitors)})`;
  return {
    tables: src.tables,
    where,
    whereParams: [],
    requestsWhere: c.unseen,
    // Only the leave reports of these pageviews: the tallies look nothing else up.
    leavesWhere: `${c.leaves} and ${idIn(`select pageview_id from ${src.tables.pageviews} where ${where}`, 'l.')}`,
    leavesParams: [],
    keptProperties: src.keptProperties,
    // The last snapshot sees no row that this one does not: what it counted is among these rows.
    counted: { rows: c.counted, leaves: seenBy(last.snapshot, 'l.') },
  };
}

/** A count as a number while it is exact, else a BigInt (event values in hundredths can pass 2^53). */
const amount = (v: string | number): number | bigint => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
};
const plus = (a: number | bigint, b: number | bigint, sign: 1 | -1): number | bigint => {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + sign * b;
    if (Number.isSafeInteger(s)) return s;
  }
  return BigInt(a) + BigInt(sign) * BigInt(b);
};

/**
 * What the recounted visitors' rows change: `after` minus `before`, per rollup row (rows they leave as
 * they were are left out). Added to the day's rows by `addToSiteDayRollup` (rollup-write.ts).
 */
export function deltaRows(before: RollupRow[], after: RollupRow[]): RollupRow[] {
  const rows = new Map<string, { row: RollupRow; count: number | bigint; visitors: number }>();
  const add = (r: RollupRow, sign: 1 | -1) => {
    const k = rollupRowKey(r);
    let had = rows.get(k);
    if (!had) {
      had = { row: r, count: 0, visitors: 0 };
      rows.set(k, had);
    }
    had.count = plus(had.count, amount(r.count), sign);
    had.visitors += sign * Number(r.visitors);
  };
  for (const r of before) add(r, -1);
  for (const r of after) add(r, 1);
  const out: RollupRow[] = [];
  for (const { row, count, visitors } of rows.values()) {
    if (count !== 0 || visitors !== 0) out.push({ ...row, count: count.toString(), visitors });
  }
  return out;
}
