// A database moved to another PostgreSQL (a dump restored on a new server, a backup brought back) keeps each raw
// row's `arrival` and each rollup's snapshot in the old server's transaction ids, while the new server numbers
// its own transactions from where its initdb left them, usually far below. Compared with one another
// (rollup-delta.ts), a row restored with an arrival no transaction here has reached is unseen by every snapshot
// taken here (a day counted whole would leave it out, a step would add it again), and a row arriving here is
// seen by the old server's snapshot whenever its number is lower. So a rollup starts only from a snapshot this
// server took, and before a day is counted on a new server, its rows with arrivals at or above this server's
// oldest running transaction are marked seen by every rollup (arrival null, as rows stored before arrivals
// were recorded): the whole-day count that follows counts them.
import { inline, sqlLiteral } from './copy-connections.ts';
import type { RollupSource } from './rollup-format.ts';

/** A snapshot of now and the server that took it (`system_identifier`; '' where the server does not tell). */
export interface ServerSnapshot {
  snapshot: string;
  server: string;
}

/** The statement giving a `ServerSnapshot` (pg_control_system is open to every role unless an operator revoked it). */
export const SNAPSHOT_WITH_SERVER_SQL = `select pg_current_snapshot()::text as snapshot,
  (select system_identifier::text from pg_control_system()) as server`;
/** The same where the server refuses pg_control_system: the snapshot alone decides (`usableLast`). */
export const SNAPSHOT_ALONE_SQL = `select pg_current_snapshot()::text as snapshot, '' as server`;

/** The part of a snapshot's text (`xmin:xmax:xip,…`) at `i`, as a number. */
const part = (snapshot: string, i: 0 | 1) => BigInt(snapshot.split(':')[i] ?? '0');

/** The last rollup's snapshot can be compared with this server's arrivals: taken here, and not ahead of now. */
export function usableLast(last: { snapshot: string; server: string | null }, now: ServerSnapshot): boolean {
  return last.server === now.server && part(last.snapshot, 1) <= part(now.snapshot, 1);
}

/** The last rollup was recorded by another server: the day's rows came with the database. */
export const recordedElsewhere = (last: { server: string | null } | null, now: ServerSnapshot) =>
  last !== null && last.server !== null && last.server !== now.server;

type Tables = RollupSource['tables'];

/** Each raw table's condition for a site-day's rows (the leave reports' name the table `l`: every statement here does). */
export function dayConditions(day: RollupSource): [keyof Tables, string][] {
  const rows = inline(day.where, day.whereParams);
  return [
    ['pageviews', rows],
    ['events', rows],
    ['requests', day.requestsWhere ?? rows],
    ['page_leaves', inline(day.leavesWhere, day.leavesParams)],
  ];
}

/**
 * Whether the day holds a row whose arrival is at or above `now`'s xmax: every transaction of this server that
 * committed is below it, so such a row was numbered by another server. Each arm is one look into the table's
 * `(site_id, arrival)` index.
 */
export function arrivalsAheadSql(day: RollupSource, now: string): string {
  const xmax = `pg_snapshot_xmax(${sqlLiteral(now)}::pg_snapshot)`;
  const arms = dayConditions(day).map(
    ([t, where]) => `exists (select 1 from ${day.tables[t]} l where ${where} and arrival >= ${xmax})`,
  );
  return `select ${arms.join(' or ')} as ahead`;
}

/** The statements marking the day's rows with arrivals at or above `now`'s xmin as seen by every rollup. */
export function clearArrivalsSql(day: RollupSource, now: string): string[] {
  const xmin = `pg_snapshot_xmin(${sqlLiteral(now)}::pg_snapshot)`;
  return dayConditions(day).map(
    ([t, where]) => `update ${day.tables[t]} l set arrival = null where ${where} and arrival >= ${xmin}`,
  );
}
