// The archive's raw records: one file per kind and UTC hour, each record with every column the raw
// table records (packages/db's column list, so a column added there is exported with no change here),
// leaving out only the site id (the same on every line) and the row's arrival (a transaction number).
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AnalyticsTable, COLUMNS, type PgPool } from '@us/db';
import { type CopyOut, copyLines } from './copy-out.ts';

/** The kinds of raw records an archive holds, each with its table. Leave reports: scroll depth, time on page, interaction. */
export const RAW_TABLES = {
  pageviews: 'pageviews',
  events: 'events',
  requests: 'requests',
  'page-leaves': 'page_leaves',
} as const satisfies Record<string, AnalyticsTable>;
export type RawKind = keyof typeof RAW_TABLES;
export const RAW_KINDS = Object.keys(RAW_TABLES) as RawKind[];

/** The columns of a raw record: its id and UTC day, then every recorded column. */
const columnsOf = (table: AnalyticsTable) => ['id', 'day', ...COLUMNS[table].map(([column]) => column)];

/**
 * The raw records of one kind and UTC hour, one JSON object per line, in time order (a COPY stream); only those
 * before `until`, the export's instant, as its listing counted them (the hour it was made in went on filling).
 */
export function archiveFile(
  pool: PgPool,
  siteId: string,
  kind: RawKind,
  hour: Date,
  limitMs: number,
  until: Date,
): Promise<CopyOut> {
  const table = RAW_TABLES[kind];
  const day = hour.toISOString().slice(0, 10);
  const end = new Date(Math.min(hour.getTime() + 3600_000, until.getTime())).toISOString();
  const columns = columnsOf(table)
    .map((c) => `t."${c}"`)
    .join(', ');
  // Within the hour's one `day` partition, on the site's part of its index.
  return copyLines(
    pool,
    (lit) => `select row_to_json(r)::text from (
        select ${columns} from ${table} t
         where t.site_id = ${lit(siteId)}::uuid and t.day = ${lit(day)}::date
           and t.at >= ${lit(hour.toISOString())}::timestamptz and t.at < ${lit(end)}::timestamptz
      ) r order by r.at, r.id`,
    limitMs,
  );
}

/** Per kind and UTC hour of the range, how many raw records there are before `until` (only hours that have some). */
export async function archiveHours(
  em: EntityManager,
  siteId: string,
  range: { from: string | null; to: string },
  cap: number,
  until: Date,
): Promise<{ kind: RawKind; hour: string; records: number }[]> {
  const out: { kind: RawKind; hour: string; records: number }[] = [];
  for (const kind of RAW_KINDS) {
    const rows = await em.getConnection().execute<{ hour: string; records: string }[]>(
      `select to_char(date_trunc('hour', at at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00:00.000"Z"') as hour,
              count(*) as records from ${RAW_TABLES[kind]}
        where site_id = ? and day <= ?::date ${range.from ? 'and day >= ?::date' : ''} and at < ?
        group by 1 order by 1 limit ?`,
      range.from ? [siteId, range.to, range.from, until, cap + 1] : [siteId, range.to, until, cap + 1],
      'all',
    );
    for (const r of rows) out.push({ kind, hour: r.hour, records: Number(r.records) });
  }
  return out.sort((a, b) => a.hour.localeCompare(b.hour) || a.kind.localeCompare(b.kind));
}
