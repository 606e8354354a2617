// Reading and writing `result_days` (migration 20261125090000): one row per site, kind, spec and UTC day
// holding the raw statement's rows for that day, with `seen`, the day's arrivals version (`day_arrivals`,
// migration 20261126090000) when they were computed. Written with upserts, so two nodes filling the same
// day at once both write the same figures.
import type { EntityManager } from '@mikro-orm/postgresql';

export type StoreKind = 'visits' | 'goal' | 'experiment' | 'journeys' | 'funnel' | 'kept';

export interface StoredDay<Row> {
  spec: string;
  day: string;
  rows: Row[];
}

/** What is known of a stored entry without reading its rows. */
export interface StoredHeader {
  spec: string;
  day: string;
  /** The day's arrivals version when the rows were computed. */
  seen: number;
  /** Seconds since the rows were computed. */
  age: number;
  /** The rows' stored size (compressed), so that they can be read in batches of bounded size. */
  bytes: number;
  /** False when the entry holds a marker instead of a list of rows (a kept table's "over"). */
  list: boolean;
}

/** The entries stored among (spec, day) pairs of one kind, without their rows. */
export async function readHeaders(
  em: EntityManager,
  siteId: string,
  kind: StoreKind,
  wanted: readonly { spec: string; day: string }[],
): Promise<StoredHeader[]> {
  if (!wanted.length) return [];
  const rows = await em.getConnection().execute<(Omit<StoredHeader, 'seen'> & { seen: string })[]>(
    `select r.spec, to_char(r.day, 'YYYY-MM-DD') as day, r.seen,
            extract(epoch from now() - r.computed_at)::float8 as age,
            pg_column_size(r.rows) as bytes, jsonb_typeof(r.rows) = 'array' as list
       from result_days r
       join jsonb_to_recordset(?::jsonb) w(spec text, day date) on r.spec = w.spec and r.day = w.day
      where r.site_id = ?::uuid and r.kind = ?`,
    [JSON.stringify(wanted.map((w) => ({ spec: w.spec, day: w.day }))), siteId, kind],
    'all',
  );
  return rows.map((r) => ({ ...r, seen: Number(r.seen), age: Number(r.age), bytes: Number(r.bytes) }));
}

/** The rows of stored entries among (spec, day) pairs of one kind (an entry deleted meanwhile is left out). */
export async function readRows<Row>(
  em: EntityManager,
  siteId: string,
  kind: StoreKind,
  wanted: readonly { spec: string; day: string }[],
): Promise<StoredDay<Row>[]> {
  if (!wanted.length) return [];
  return em.getConnection().execute<StoredDay<Row>[]>(
    `select r.spec, to_char(r.day, 'YYYY-MM-DD') as day, r.rows
       from result_days r
       join jsonb_to_recordset(?::jsonb) w(spec text, day date) on r.spec = w.spec and r.day = w.day
      where r.site_id = ?::uuid and r.kind = ?`,
    [JSON.stringify(wanted.map((w) => ({ spec: w.spec, day: w.day }))), siteId, kind],
    'all',
  );
}

export async function writeStored(
  em: EntityManager,
  siteId: string,
  kind: StoreKind,
  entries: readonly StoredDay<unknown>[],
  seen: number,
): Promise<void> {
  const unique = [...new Map(entries.map((e) => [`${e.spec} ${e.day}`, e])).values()];
  if (!unique.length) return;
  await em.getConnection().execute(
    // computed_at from the inserted row rather than now() in the update: Citus takes only immutable functions there.
    `insert into result_days (site_id, kind, spec, day, rows, seen, computed_at)
     select ?::uuid, ?, e.spec, e.day, e.rows, ?, now()
       from jsonb_to_recordset(?::jsonb) e(spec text, day date, rows jsonb)
     on conflict (site_id, kind, spec, day) do update set rows = excluded.rows, seen = excluded.seen, computed_at = excluded.computed_at`,
    [siteId, kind, seen, JSON.stringify(unique)],
    'run',
  );
}

/**
 * The arrivals version of each UTC day: pageview and event rows ever inserted for it (0 when none).
 * One index lookup per day, however many rows the day has.
 */
export async function arrivalsOf(em: EntityManager, siteId: string, days: readonly string[]): Promise<Map<string, number>> {
  const out = new Map(days.map((d) => [d, 0]));
  if (!days.length) return out;
  const rows = await em
    .getConnection()
    .execute<{ day: string; rows: string }[]>(
      `select to_char(day, 'YYYY-MM-DD') as day, rows from day_arrivals where site_id = ?::uuid and day = any(?::date[])`,
      [siteId, `{${days.join(',')}}`],
      'all',
    );
  for (const r of rows) out.set(r.day, Number(r.rows));
  return out;
}
