// Plausible's CSV export (Site settings → Imports & Exports → Export): one file per table, named
// `imported_<table>_<YYYYMMDD>_<YYYYMMDD>.csv` (or without `imported_`), each row one day and one value.
// The tables and columns are those Plausible's own importer reads (plausible/analytics,
// lib/plausible/imported/csv_importer.ex, `input_structures`, commit 733745205053c7c038920974aef18fa2383287e7).
// Columns added in later exports (pageviews beside visits, versions) are read when present; an older
// export without them still imports.
//
// Plausible's figures become ours (catalogue.ts):
// - visits are sessions; visitors per day and value as Plausible counted them (summed over rows that share
//   our value, e.g. the regions of one country);
// - bounces are single-page visits (summary `single_page`), visit_duration (seconds, summed) the visible time
//   (summary `visible_ms`);
// - entry pages are the sessions' `page`, exit pages their `exit_page`, pages the pageviews' `page`;
// - custom events are events by `event` name (and `page` where the export has the path).
import { FIRST_DAY, isDay, LAST_DAY } from '../../../analytics/range.ts';
import type { ImportedRow, ImportFormat, ImportSink, NumberedRecord } from './format.ts';
import { stored, storedPath } from './stored-values.ts';

interface Table {
  /** Columns the file must have (besides `date`). */
  required: string[];
  /** One record's figures; `n` reads a count column (a BadRecord thrown when it is no whole number). */
  rows(r: Record<string, string>, day: string, n: (col: string) => number): ImportedRow[];
}

const row = (day: string, metricSet: string, dimension: string, value: string, count: number, visitors: number): ImportedRow => ({
  day,
  metricSet,
  dimension,
  value,
  count,
  visitors,
});

/** Plausible's device names, ours lower-case. */
const DEVICES: Record<string, string> = { Desktop: 'desktop', Mobile: 'mobile', Tablet: 'tablet', Laptop: 'desktop' };
/** Plausible's browser and system names where ours differ (core/enrich/software.ts). */
const BROWSERS: Record<string, string> = { 'Microsoft Edge': 'Edge', 'Samsung Browser': 'Samsung Internet' };
const SYSTEMS: Record<string, string> = { Mac: 'macOS', 'GNU/Linux': 'Linux', 'Chrome OS': 'ChromeOS' };
/** Plausible's source names of search engines: their visits are "from search" in the summary. */
const SEARCH_SOURCES = new Set([
  'Google',
  'Bing',
  'DuckDuckGo',
  'Yahoo!',
  'Ecosia',
  'Baidu',
  'Yandex',
  'Qwant',
  'Startpage',
  'Naver',
  'Seznam',
  'Brave',
]);

/**
 * Plausible writes no value as an empty field, or `(none)` / `Direct / None` for direct visits. The rest is stored
 * as intake stores the native value of its column (`stored`, `storedPath`), so imported and native values group.
 */
const cleanValue = (v: string | undefined) => {
  // Control characters dropped (PostgreSQL refuses NUL in text: one such value would fail its whole batch)
  // and bounded as intake bounds a path.
  const s = (v ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .trim()
    .slice(0, 2048);
  return s === '(none)' || s === 'Direct / None' || s === '(not set)' ? '' : s;
};

/** A page path as intake stores one (read as a URL's path: `/über uns` and `/%C3%BCber%20uns` are one page); '' for none. */
const pathOf = (v: string | undefined) => {
  const path = cleanValue(v);
  return path ? storedPath(path) : '';
};

/** "Chrome 131": a name and the major of its version, as our versions read; '' without either. */
function withMajor(name: string, version: string | undefined): string {
  const major = /^(\d{1,3})\b/.exec((version ?? '').trim())?.[1];
  return name && major ? `${name} ${Number(major)}` : '';
}

/** Sessions (visits) and, where the export has them, pageviews of one value of a sessions dimension. */
function visitRows(day: string, dimension: string, value: string, r: Record<string, string>, n: (c: string) => number) {
  const out = [row(day, 'sessions', dimension, value, n('visits'), n('visitors'))];
  if (r.pageviews !== undefined) out.push(row(day, 'pageviews', dimension, value, n('pageviews'), n('visitors')));
  return out;
}

const VISIT_COLUMNS = ['visitors', 'visits'];

export const PLAUSIBLE_TABLES: Record<string, Table> = {
  imported_visitors: {
    required: ['visitors', 'pageviews', 'bounces', 'visits', 'visit_duration'],
    rows: (_r, day, n) => [
      row(day, 'pageviews', '', '', n('pageviews'), n('visitors')),
      row(day, 'sessions', '', '', n('visits'), n('visitors')),
      row(day, 'summary', 'single_page', '', n('bounces'), 0),
      row(day, 'summary', 'visible_ms', '', n('visit_duration') * 1000, 0),
    ],
  },
  imported_sources: {
    required: ['source', 'utm_medium', 'utm_campaign', ...VISIT_COLUMNS],
    rows: (r, day, n) => {
      const source = stored('pageviews', 'source', cleanValue(r.source));
      const out = [
        ...visitRows(day, 'source', source, r, n),
        row(day, 'sessions', 'medium', stored('pageviews', 'utmMedium', cleanValue(r.utm_medium)), n('visits'), n('visitors')),
        row(
          day,
          'sessions',
          'campaign',
          stored('pageviews', 'utmCampaign', cleanValue(r.utm_campaign)),
          n('visits'),
          n('visitors'),
        ),
      ];
      if (SEARCH_SOURCES.has(source)) out.push(row(day, 'summary', 'from_search', '', n('visits'), 0));
      return out;
    },
  },
  imported_pages: {
    required: ['page', 'visitors', 'pageviews'],
    rows: (r, day, n) => [row(day, 'pageviews', 'page', pathOf(r.page), n('pageviews'), n('visitors'))],
  },
  imported_entry_pages: {
    required: ['entry_page', 'visitors', 'entrances'],
    rows: (r, day, n) => [row(day, 'sessions', 'page', pathOf(r.entry_page), n('entrances'), n('visitors'))],
  },
  imported_exit_pages: {
    required: ['exit_page', 'visitors', 'exits'],
    rows: (r, day, n) => [row(day, 'sessions', 'exit_page', pathOf(r.exit_page), n('exits'), n('visitors'))],
  },
  imported_locations: {
    required: ['country', ...VISIT_COLUMNS],
    rows: (r, day, n) => visitRows(day, 'country', stored('pageviews', 'country', cleanValue(r.country).toUpperCase()), r, n),
  },
  imported_devices: {
    required: ['device', ...VISIT_COLUMNS],
    rows: (r, day, n) => {
      const d = cleanValue(r.device);
      return visitRows(day, 'device', stored('pageviews', 'device', DEVICES[d] ?? d.toLowerCase()), r, n);
    },
  },
  imported_browsers: {
    required: ['browser', ...VISIT_COLUMNS],
    rows: (r, day, n) => {
      const name = stored('pageviews', 'browser', BROWSERS[cleanValue(r.browser)] ?? cleanValue(r.browser));
      const out = visitRows(day, 'browser', name, r, n);
      if (r.browser_version !== undefined)
        out.push(...visitRows(day, 'browser_version', withMajor(name, r.browser_version), r, n));
      return out;
    },
  },
  imported_operating_systems: {
    required: ['operating_system', ...VISIT_COLUMNS],
    rows: (r, day, n) => {
      const name = stored('pageviews', 'os', SYSTEMS[cleanValue(r.operating_system)] ?? cleanValue(r.operating_system));
      const out = visitRows(day, 'os', name, r, n);
      if (r.operating_system_version !== undefined) {
        out.push(...visitRows(day, 'os_version', withMajor(name, r.operating_system_version), r, n));
      }
      return out;
    },
  },
  imported_custom_events: {
    required: ['name', 'visitors', 'events'],
    rows: (r, day, n) => {
      const out = [row(day, 'events', 'event', stored('events', 'name', cleanValue(r.name)), n('events'), n('visitors'))];
      if (r.path !== undefined) out.push(row(day, 'events', 'page', pathOf(r.path), n('events'), n('visitors')));
      return out;
    },
  },
};

/**
 * The file among `others` holding the same table as `fileName` over days that overlap its own (the days are in the
 * names Plausible gives), or null: two such files' rows would be summed. Two periods side by side are fine.
 */
export function overlappingPlausibleFile(fileName: string, others: readonly string[]): string | null {
  const spanOf = (name: string) => {
    const m = /^(?:imported_)?([a-z_]+?)_(\d{8})_(\d{8})\.csv$/.exec(name);
    return m ? { table: m[1], from: m[2] as string, to: m[3] as string } : null;
  };
  const mine = spanOf(fileName);
  if (!mine) return null;
  return (
    others.find((other) => {
      const span = spanOf(other);
      return other !== fileName && span !== null && span.table === mine.table && span.from <= mine.to && mine.from <= span.to;
    }) ?? null
  );
}

/** The table a file name names (`imported_pages_20240101_20240630.csv` or `pages_…`), or null. */
export function plausibleTableOf(fileName: string): string | null {
  const m = /^(?:imported_)?([a-z_]+?)_\d{8}_\d{8}\.csv$/.exec(fileName);
  const table = m ? `imported_${m[1]}` : null;
  return table && table in PLAUSIBLE_TABLES ? table : null;
}

class BadRecord extends Error {}

async function read(fileName: string, records: AsyncIterable<NumberedRecord>, sink: ImportSink): Promise<void> {
  const table = PLAUSIBLE_TABLES[plausibleTableOf(fileName) ?? ''];
  if (!table) return;
  for await (const { line, record } of records) {
    const day = (record.date ?? '').trim();
    if (!isDay(day)) {
      sink.bad(line, `date "${day.slice(0, 40)}" is not a day from ${FIRST_DAY} to ${LAST_DAY} (YYYY-MM-DD)`);
      continue;
    }
    const n = (col: string) => {
      const raw = (record[col] ?? '').trim();
      if (raw === '' && col === 'pageviews') return 0;
      if (!/^\d{1,15}$/.test(raw)) throw new BadRecord(`${col} "${raw.slice(0, 40)}" is not a whole number`);
      return Number(raw);
    };
    let rows: ImportedRow[];
    try {
      rows = table.rows(record, day, n);
    } catch (e) {
      if (!(e instanceof BadRecord)) throw e;
      sink.bad(line, e.message);
      continue;
    }
    await sink.rows(rows);
  }
}

export const plausibleFormat: ImportFormat = {
  source: 'plausible',
  check(fileName, header) {
    const table = plausibleTableOf(fileName);
    if (!table) {
      return `${fileName} is not a file of Plausible's export: expected names like imported_pages_20240101_20240630.csv, one of ${Object.keys(PLAUSIBLE_TABLES).join(', ')}`;
    }
    const expected = ['date', ...(PLAUSIBLE_TABLES[table]?.required ?? [])];
    const missing = expected.filter((c) => !header.includes(c));
    if (missing.length) {
      return `${fileName} lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: ${table} files of Plausible's export have ${expected.join(', ')}`;
    }
    return null;
  },
  read,
};
