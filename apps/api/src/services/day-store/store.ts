// Reading and writing `result_days` (migration 20261125090000): one row per site, kind, spec and UTC day
// holding the raw statement's rows for that day. Written with upserts, so two nodes filling the same
// day at once both write the same figures.
import type { EntityManager } from '@mikro-orm/postgresql';

export type StoreKind = 'visits' | 'goal' | 'experiment' | 'journeys';

export interface StoredDay<Row> {
  spec: string;
  day: string;
  rows: Row[];
}

/** The stored entries among (spec, day) pairs of one kind. */
export async function readStored<Row>(
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
    `insert into result_days (site_id, kind, spec, day, rows, seen)
     select ?::uuid, ?, e.spec, e.day, e.rows, ?
       from jsonb_to_recordset(?::jsonb) e(spec text, day date, rows jsonb)
     on conflict (site_id, kind, spec, day) do update set rows = excluded.rows, seen = excluded.seen, computed_at = now()`,
    [siteId, kind, seen, JSON.stringify(unique)],
    'run',
  );
}

/** Pageview and event rows of the site's UTC day (late rows change it; see jobs/result-days.ts). */
export async function seenOf(em: EntityManager, siteId: string, day: string): Promise<number> {
  const [row] = await em.getConnection().execute<{ n: string }[]>(
    `select (select count(*) from pageviews where site_id = ?::uuid and day = ?::date)
          + (select count(*) from events where site_id = ?::uuid and day = ?::date) as n`,
    [siteId, day, siteId, day],
    'all',
  );
  return Number(row?.n ?? 0);
}
