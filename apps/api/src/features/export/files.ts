// What each file of an export holds, written as it is read: raw records as a COPY stream (raw-files.ts),
// the smaller files as text chunks of rows fetched in pages of PAGE by key (never a day in memory). No
// file holds an address, a user agent, a credential or a secret: the tables keep none of the first two,
// and site keys, the internal key and the pass key are left out here.
import type { EntityManager } from '@mikro-orm/postgresql';
import { IMPORTED_DONE } from '../../analytics/rollup-source.ts';
import { journeyLines, siteRowOf } from './journey-lines.ts';

const PAGE = 2000;

type Row = Record<string, unknown>;

/** Pages of a keyed statement: `page(after)` gives the statement for the rows after the last one (null: the first). */
async function* pages(em: EntityManager, page: (after: Row | null) => [string, unknown[]]): AsyncGenerator<Row[]> {
  let after: Row | null = null;
  for (;;) {
    const [sql, params] = page(after);
    const rows = await em.getConnection().execute<Row[]>(`${sql} limit ${PAGE}`, params, 'all');
    if (rows.length) yield rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1) as Row;
  }
}

/**
 * Text chunks of at most CHUNK lines: a page joined into one large string would be allocated outside the
 * young generation and kept until a full collection (the process grew a lot over a day of raw files:
 * docs/performance/history.md, "Figures once kept in code comments"); small chunks die young.
 */
const CHUNK = 100;

function* chunks(lines: readonly string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += CHUNK) yield lines.slice(i, i + CHUNK).join('');
}

const lines = (rows: readonly Row[], extra: Row = {}) => chunks(rows.map((r) => `${JSON.stringify({ ...extra, ...r })}\n`));

async function siteSettings(em: EntityManager, siteId: string): Promise<Row> {
  const [site] = await em
    .getConnection()
    .execute<Row[]>(
      `select id, name, timezone, settings, retention_days as "retentionDays", created_at as "createdAt" from sites where id = ?`,
      [siteId],
      'all',
    );
  const hostnames = await em
    .getConnection()
    .execute<Row[]>(
      `select hostname, proxy, origin, verified_at as "verifiedAt" from site_hostnames where site_id = ? order by hostname`,
      [siteId],
      'all',
    );
  return { ...site, hostnames };
}

/** The site as configured: name, time zone, retention, hostnames, settings (goals, experiments, bot settings…). */
export async function* settingsFile(em: EntityManager, siteId: string): AsyncGenerator<string> {
  yield `${JSON.stringify(await siteSettings(em, siteId), null, 2)}\n`;
}

/**
 * One JSON object per line: the settings, each day's totals (rollups' dimension ''), the search weeks
 * (figures only: connections' credentials are never exported), the imported figures of history imports,
 * stored results per day, then the
 * journeys of every UTC day of the export's range that has records (journey-lines.ts).
 */
export async function* siteStoreFile(
  em: EntityManager,
  siteId: string,
  range: { from: string | null; to: string },
): AsyncGenerator<string> {
  yield* lines([await siteSettings(em, siteId)], { type: 'settings' });
  for await (const rows of pages(em, (a) => [
    `select to_char(day, 'YYYY-MM-DD') as day, metric_set as "metricSet", lane, count::float8 as count,
            visitors::float8 as visitors from daily_rollups
      where site_id = ? and dimension = '' ${a ? 'and (day, metric_set, lane) > (?::date, ?, ?)' : ''}
      order by day, metric_set, lane`,
    a ? [siteId, a.day, a.metricSet, a.lane] : [siteId],
  ])) {
    yield* lines(rows, { type: 'daily-totals' });
  }
  for await (const rows of pages(em, (a) => [
    `select source, to_char(week, 'YYYY-MM-DD') as week, clicks::float8 as clicks, impressions::float8 as impressions,
            ctr, position, pages, queries, links::float8 as links, top
       from search_weeks where site_id = ? ${a ? 'and (source, week) > (?, ?::date)' : ''} order by source, week`,
    a ? [siteId, a.source, a.week] : [siteId],
  ])) {
    yield* lines(rows, { type: 'search-week' });
  }
  // History imports (docs/product/imports.md): every imported figure, a rollup row with its import's id.
  for await (const rows of pages(em, (a) => [
    `select to_char(day, 'YYYY-MM-DD') as day, metric_set as "metricSet", dimension, value, lane, count::float8 as count,
            visitors::float8 as visitors, import_id as "importId"
      from imported_rollups where site_id = ? and ${IMPORTED_DONE}
      ${a ? 'and (day, metric_set, dimension, value, lane, import_id) > (?::date, ?, ?, ?, ?, ?::uuid)' : ''}
      order by day, metric_set, dimension, value, lane, import_id`,
    a ? [siteId, a.day, a.metricSet, a.dimension, a.value, a.lane, a.importId] : [siteId],
  ])) {
    yield* lines(rows, { type: 'imported' });
  }
  yield* storedDays(em, siteId);
  // Last: computing a day stores it, and the stored days above are the store as it was.
  yield* journeyLines(em, await siteRowOf(em, siteId), range);
}

/**
 * Bytes of stored days' rows read at once. A busy site's journeys day is megabytes of JSON, and a page of 2,000
 * such rows read whole ran the API out of memory: the headers are paged by key, the rows read this much at a time.
 */
const STORED_BATCH_BYTES = 4 * 1024 * 1024;

/** Stored results per day (`result_days`), one line each, their rows as PostgreSQL writes them (no parse here). */
export async function* storedDays(em: EntityManager, siteId: string, batchBytes = STORED_BATCH_BYTES): AsyncGenerator<string> {
  for await (const heads of pages(em, (a) => [
    `select kind, spec, to_char(day, 'YYYY-MM-DD') as day, pg_column_size(rows) as bytes from result_days
      where site_id = ? and kind not like '%-span' and kind <> 'kept' ${a ? 'and (kind, spec, day) > (?, ?, ?::date)' : ''}
      order by kind, spec, day`,
    a ? [siteId, a.kind, a.spec, a.day] : [siteId],
  ])) {
    let batch: Row[] = [];
    let bytes = 0;
    for (const [i, head] of heads.entries()) {
      batch.push(head);
      bytes += Number(head.bytes);
      if (bytes < batchBytes && i < heads.length - 1) continue;
      const rows = await em.getConnection().execute<{ kind: string; spec: string; day: string; rows: string }[]>(
        `select r.kind, r.spec, to_char(r.day, 'YYYY-MM-DD') as day, r.rows::text as rows
           from result_days r join jsonb_to_recordset(?::jsonb) w(kind text, spec text, day date)
             on r.kind = w.kind and r.spec = w.spec and r.day = w.day
          where r.site_id = ? order by r.kind, r.spec, r.day`,
        [JSON.stringify(batch.map(({ kind, spec, day }) => ({ kind, spec, day }))), siteId],
        'all',
      );
      for (const r of rows) {
        yield `${JSON.stringify({ type: 'stored-day', kind: r.kind, spec: r.spec, day: r.day }).slice(0, -1)},"rows":${r.rows}}\n`;
      }
      batch = [];
      bytes = 0;
    }
  }
}

/** Every rollup row: per local day, metric set, dimension, value and lane, its count and visitors. */
export async function* rollupsFile(em: EntityManager, siteId: string): AsyncGenerator<string> {
  for await (const rows of pages(em, (a) => [
    `select to_char(day, 'YYYY-MM-DD') as day, metric_set as "metricSet", dimension, value, lane, count::float8 as count,
            visitors::float8 as visitors
      from daily_rollups where site_id = ?
      ${a ? 'and (day, metric_set, dimension, value, lane) > (?::date, ?, ?, ?, ?)' : ''}
      order by day, metric_set, dimension, value, lane`,
    a ? [siteId, a.day, a.metricSet, a.dimension, a.value, a.lane] : [siteId],
  ])) {
    yield* lines(rows);
  }
}
