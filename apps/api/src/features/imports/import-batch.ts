// One batch of an import written in one transaction with its checkpoint: the figures summed per day and
// key, the staged records, the bad rows, and where a resumed run starts. Days on which the site has its
// own data are skipped; days an earlier import of the site covered lose that import's figures once this one is
// done (docs/product/imports.md, "Overlapping days").
import { IMPORT_LIMITS } from '@us/shared';
import { IMPORTING_LANE } from '../../analytics/rollup-source.ts';
import type { ImportedRow, StagedRecord } from './formats/format.ts';
import type { Db } from './import-files.ts';

export interface Checkpoint {
  file: string;
  /** The last line whose records are stored. */
  line: number;
}

export interface BadRow {
  file: string;
  line: number;
  reason: string;
}

/**
 * The most a figure is summed to: counts a file states (up to 15 digits a cell) add up past what a number holds
 * exactly, and past PostgreSQL's bigint (one such day failed the whole import); a sum stops here instead.
 */
const MOST = Number.MAX_SAFE_INTEGER;

/** Sums of one batch, keyed by day, set, dimension and value. */
export class Batch {
  readonly sums = new Map<string, ImportedRow>();
  staged: StagedRecord[] = [];
  bad: BadRow[] = [];
  badCount = 0;
  records = 0;

  add(rows: readonly ImportedRow[]) {
    for (const r of rows) {
      const key = `${r.day}\x1f${r.metricSet}\x1f${r.dimension}\x1f${r.value}`;
      const had = this.sums.get(key);
      if (had) {
        had.count = Math.min(had.count + r.count, MOST);
        had.visitors = Math.min(had.visitors + r.visitors, MOST);
      } else this.sums.set(key, { ...r, count: Math.min(r.count, MOST), visitors: Math.min(r.visitors, MOST) });
    }
  }

  get size() {
    return this.sums.size + this.staged.length;
  }

  days(): string[] {
    return [...new Set([...[...this.sums.values()].map((r) => r.day), ...this.staged.map((r) => r.day)])].sort();
  }
}

/**
 * The days among `days` on which the site has its own data: daily rollup rows, or raw pageviews that local day. A
 * `rollup_days` record alone is no data: the rollup job records every day over the raw partitions, those before the
 * site had any data too.
 */
export async function nativeDays(db: Db, siteId: string, timezone: string, days: string[]): Promise<Set<string>> {
  if (!days.length) return new Set();
  const { rows } = await db.query<{ day: string }>(
    `select to_char(d, 'YYYY-MM-DD') as day from unnest($2::date[]) d
     where exists (select 1 from daily_rollups where site_id = $1 and day = d)
        or exists (select 1 from pageviews where site_id = $1
                     and at >= (d::timestamp at time zone $3) and at < ((d + 1)::timestamp at time zone $3))`,
    [siteId, days, timezone],
  );
  return new Set(rows.map((r) => r.day));
}

/**
 * The days among `days` that the site's other (earlier) imports have figures of: this import replaces them once it is
 * done (`replaceEarlier`), so a failed or deleted one leaves them as they were.
 */
export async function earlierDays(db: Db, siteId: string, importId: string, days: string[]): Promise<string[]> {
  if (!days.length) return [];
  const { rows } = await db.query<{ day: string }>(
    `select distinct to_char(day, 'YYYY-MM-DD') as day from imported_rollups
      where site_id = $1 and day = any($2::date[]) and import_id <> $3`,
    [siteId, days, importId],
  );
  return rows.map((r) => r.day);
}

/**
 * As the import ends: the other imports' figures of the days it stored are removed, and its own (waiting in
 * IMPORTING_LANE) take the human lane, in the ending transaction, so the answers go from the earlier figures to
 * these at once.
 */
export async function replaceEarlier(db: Db, siteId: string, importId: string): Promise<void> {
  await db.query(
    `delete from imported_rollups e
      where e.site_id = $1 and e.import_id <> $2
        and e.day in (select day from imported_rollups where site_id = $1 and import_id = $2
                      union select day from import_staged where site_id = $1 and import_id = $2)`,
    [siteId, importId],
  );
  await db.query(
    `update imported_rollups set lane = 'human' where site_id = $1 and import_id = $2 and lane = '${IMPORTING_LANE}'`,
    [siteId, importId],
  );
}

/** Adds rows to the import's figures; answers how many rollup rows were new. */
export async function storeRows(db: Db, siteId: string, importId: string, rows: ImportedRow[]): Promise<number> {
  if (!rows.length) return 0;
  const { rows: out } = await db.query<{ added: string }>(
    `with up as (
       insert into imported_rollups (site_id, day, metric_set, dimension, value, lane, count, visitors, import_id)
       select $1::uuid, d, m, dim, v, '${IMPORTING_LANE}', c, vis, $2::uuid
       from unnest($3::date[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[]) as x(d, m, dim, v, c, vis)
       on conflict (site_id, day, metric_set, dimension, value, lane, import_id)
         do update set count = least(imported_rollups.count + excluded.count, ${MOST}),
                       visitors = least(imported_rollups.visitors + excluded.visitors, ${MOST})
       returning (xmax = 0) as inserted)
     select count(*) filter (where inserted) as added from up`,
    [
      siteId,
      importId,
      rows.map((r) => r.day),
      rows.map((r) => r.metricSet),
      rows.map((r) => r.dimension),
      rows.map((r) => r.value),
      rows.map((r) => String(r.count)),
      rows.map((r) => String(r.visitors)),
    ],
  );
  return Number(out[0]?.added ?? 0);
}

export async function stageRecords(
  db: Db,
  siteId: string,
  importId: string,
  file: string,
  records: StagedRecord[],
): Promise<void> {
  if (!records.length) return;
  await db.query(
    `insert into import_staged (site_id, import_id, file, day, metric_set, dimension, value, visit_key, count)
     select $1::uuid, $2::uuid, $3, * from unnest($4::date[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])`,
    [
      siteId,
      importId,
      file,
      records.map((r) => r.day),
      records.map((r) => r.metricSet),
      records.map((r) => r.dimension),
      records.map((r) => r.value),
      records.map((r) => r.visitKey),
      records.map((r) => String(r.count)),
    ],
  );
}

/** The progress of a batch added to the import's row, with its checkpoint (null: every file is read). */
export async function recordProgress(
  db: Db,
  importId: string,
  p: { records: number; stored: number; bad: BadRow[]; badCount: number; days: string[]; skipped: string[]; replaced: string[] },
  checkpoint: Checkpoint | null,
): Promise<void> {
  await db.query(
    `update imports set
       rows_read = rows_read + $2, rows_stored = rows_stored + $3, bad_rows = bad_rows + $4,
       bad_samples = (select coalesce(jsonb_agg(s), '[]'::jsonb) from (
         select s from jsonb_array_elements(bad_samples || $5::jsonb) s limit ${IMPORT_LIMITS.badSamples}) t),
       day_from = least(day_from, $6::date), day_to = greatest(day_to, $7::date),
       skipped_days = (select coalesce(jsonb_agg(distinct d), '[]'::jsonb) from jsonb_array_elements_text(skipped_days || $8::jsonb) d),
       replaced_days = (select coalesce(jsonb_agg(distinct d), '[]'::jsonb) from jsonb_array_elements_text(replaced_days || $9::jsonb) d),
       checkpoint = $10::jsonb, heartbeat_at = now()
     where id = $1`,
    [
      importId,
      p.records,
      p.stored,
      p.badCount,
      JSON.stringify(p.bad.slice(0, IMPORT_LIMITS.badSamples)),
      p.days[0] ?? null,
      p.days.at(-1) ?? null,
      JSON.stringify(p.skipped),
      JSON.stringify(p.replaced),
      checkpoint ? JSON.stringify(checkpoint) : null,
    ],
  );
}
