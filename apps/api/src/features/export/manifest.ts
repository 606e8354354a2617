// manifest.json and archive.json: what is where, made from the export's row each time they are fetched
// (never kept). The manifest counts the rows of the site's files with a few count statements.
import type { EntityManager } from '@mikro-orm/postgresql';
import { IMPORTED_DONE } from '../../analytics/rollup-source.ts';
import { journeyLineCount, siteRowOf } from './journey-lines.ts';
import { RAW_KINDS, type RawKind } from './raw-files.ts';

/** An export as recorded (`exports`), days as YYYY-MM-DD. */
export interface ExportRow {
  id: string;
  site_id: string;
  workspace_id: string;
  created_at: Date;
  range_from: string | null;
  range_to: string;
  archive: { kind: RawKind; hour: string; records: number }[];
}

export const archiveName = (kind: string, hour: string) => `archive/${kind}/${hour.slice(0, 13)}.ndjson.gz`;

/** archive.json: the raw-record files, each with its name, record count and own link. */
export function archiveListing(row: ExportRow, linkTo: (file: string) => string) {
  return {
    from: row.range_from,
    to: row.range_to,
    files: row.archive.map((f) => ({ ...f, name: archiveName(f.kind, f.hour), url: linkTo(archiveName(f.kind, f.hour)) })),
  };
}

export async function manifest(em: EntityManager, row: ExportRow, linkTo: (file: string) => string) {
  const count = async (sql: string) =>
    Number((await em.getConnection().execute<{ n: string }[]>(sql, [row.site_id], 'all'))[0]?.n ?? 0);
  const rollups = await count('select count(*) as n from daily_rollups where site_id = ?');
  const totals = await count(`select count(*) as n from daily_rollups where site_id = ? and dimension = ''`);
  const stored = await count(
    `select count(*) as n from result_days where site_id = ? and kind not like '%-span' and kind <> 'kept'`,
  );
  const searchWeeks = await count('select count(*) as n from search_weeks where site_id = ?');
  const imported = await count(`select count(*) as n from imported_rollups where site_id = ? and ${IMPORTED_DONE}`);
  const journeys = await journeyLineCount(em, await siteRowOf(em, row.site_id), { from: row.range_from, to: row.range_to });
  const perKind = Object.fromEntries(
    RAW_KINDS.map((k) => [k, row.archive.filter((f) => f.kind === k).reduce((n, f) => n + f.records, 0)]),
  );
  return {
    export: row.id,
    site: row.site_id,
    createdAt: new Date(row.created_at).toISOString(),
    range: { from: row.range_from, to: row.range_to },
    files: [
      { name: 'settings.json', url: linkTo('settings.json'), holds: 'the site: name, time zone, retention, hostnames, settings' },
      {
        name: 'site-store.ndjson',
        url: linkTo('site-store.ndjson'),
        holds:
          'one JSON object per line: settings, daily totals, search weeks, imported figures (history imports, each with its import), stored results per day, journeys per UTC day of the range and zoom',
        counts: { settings: 1, 'daily-totals': totals, 'search-week': searchWeeks, imported, 'stored-day': stored, journeys },
      },
      { name: 'rollups.ndjson', url: linkTo('rollups.ndjson'), holds: 'every daily rollup row', counts: { rows: rollups } },
      {
        name: 'archive.json',
        url: linkTo('archive.json'),
        holds:
          'raw records: one gzipped NDJSON file per kind (pageviews, events, requests, page-leaves) and UTC hour, each with its own link',
        counts: { files: row.archive.length, ...perKind },
      },
    ],
  };
}
