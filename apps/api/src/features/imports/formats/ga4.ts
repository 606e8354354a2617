// Google Analytics 4's standard reports as its Download → CSV writes them: `#` lines (report name, account,
// property, "Start date: 20250101"), maybe a blank line, then one table whose header names the report's
// dimension and metrics in the UI's language (English is read). Each row needs its day: the report's Date
// column, added as a (secondary) dimension before downloading. GA4's days are in the property's time zone.
//
// Which rows a file gives, by its dimension columns (ga4-columns.ts):
// - Date only (the overview, or any time series): the day totals of pageviews (Views) and sessions (Sessions);
// - Page path and screen class / Page path: pageviews by page (Views);
// - Landing page, Session source / medium / campaign / default channel group: sessions by entry page,
//   source, medium, campaign, channel (Sessions);
// - Browser, Operating system, Device category, Country: pageviews (Views) and sessions (Sessions) when the
//   file has them, else visitors alone (GA4's Tech and Demographics tables have users, no views);
// - Event name: events by name (Event count), GA4's own automatic events left out.
// Visitors are the row's Total users, else Active users, else Users. Only a Date-only file gives day totals:
// the job sums rows of one day and key over files, so a breakdown's sum never stands in for them (and its
// users, summed over values, would count a visitor once per page).
import { dayOfDate } from './days.ts';
import type { ImportedRow, ImportFormat, ImportSink, NumberedRecord } from './format.ts';
import { DIMENSION_WORDS, GA4_DIMENSIONS, type Ga4Dimension, SCOPE_SETS, USER_COLUMNS } from './ga4-columns.ts';
import { trimmedNames } from './header-names.ts';

const DATE = 'Date';
/** The sum rows some downloads add (first in the table): figures of no day and value, left out. */
const TOTAL_ROW = /^(grand )?totals?$/i;

const COUNT_COLUMNS = [...new Set(Object.values(SCOPE_SETS).flatMap((sets) => sets.map(([, column]) => column)))];

/** Every column name a table's header can have that this reader knows: a row of them starts another table. */
const HEADER_NAMES = new Set([DATE, 'Nth day', ...Object.keys(GA4_DIMENSIONS), ...COUNT_COLUMNS, ...USER_COLUMNS]);

/**
 * A whole count as GA4 writes it, with thousands separators in some locales ("1,234", "1.234", "1 234",
 * "1'234", "12,34,567"); an empty cell is 0. Null when it is no whole number ("1,5", "12%"): that row is bad.
 */
export function parseCount(cell: string): number | null {
  const s = cell.trim();
  if (s === '') return 0;
  // Up to 15 digits, as the other sources: a longer one is no count (400 nines made Infinity, failing the import).
  if (s.replace(/\D/g, '').length > 15) return null;
  if (/^\d+$/.test(s)) return Number(s);
  const grouped = /^\d{1,3}([,.\u00a0\u202f '’])\d{3}(?:\1\d{3})*$/.test(s);
  // India's grouping: "12,34,567".
  const indian = /^\d{1,2}(?:,\d{2})*,\d{3}$/.test(s);
  return grouped || indian ? Number(s.replace(/\D/g, '')) : null;
}

/** The file's layout: its dimension columns and the count and users columns it has. */
interface Layout {
  dimensions: [column: string, Ga4Dimension][];
  counts: Set<string>;
  users: string | null;
}

function layoutOf(header: readonly string[]): Layout {
  const columns = new Set(header.map((h) => h.trim()));
  return {
    dimensions: Object.entries(GA4_DIMENSIONS).filter(([name]) => columns.has(name)),
    counts: new Set(COUNT_COLUMNS.filter((c) => columns.has(c))),
    users: USER_COLUMNS.find((c) => columns.has(c)) ?? null,
  };
}

const KNOWN_DIMENSIONS = Object.keys(GA4_DIMENSIONS).join(', ');

function checkHeader(header: string[]): string | null {
  const columns = header.map((h) => h.trim());
  if (!columns.includes(DATE)) {
    return (
      'Google Analytics 4 files need a Date column: add Date as a dimension (or secondary dimension) of the report, then ' +
      'Download → CSV again. Column names are read in English.'
    );
  }
  const layout = layoutOf(columns);
  if (layout.counts.size === 0 && layout.users === null) {
    return `This Google Analytics 4 file has none of the columns counted: ${[...COUNT_COLUMNS, ...USER_COLUMNS].join(', ')}.`;
  }
  const unread = columns.filter((c) => c !== DATE && !(c in GA4_DIMENSIONS) && DIMENSION_WORDS.test(c));
  if (unread.length > 0) {
    return `Column ${unread.map((c) => `"${c}"`).join(', ')} is a dimension this import does not read: download with Date and one of ${KNOWN_DIMENSIONS}.`;
  }
  return null;
}

/** A row's figures, or the reason it is bad. */
function figuresOf(record: Record<string, string>, layout: Layout): { counts: Map<string, number>; visitors: number } | string {
  const counts = new Map<string, number>();
  for (const column of layout.counts) {
    const n = parseCount(record[column] ?? '');
    if (n === null) return `${column} "${record[column]}" is not a whole number`;
    counts.set(column, n);
  }
  const visitors = layout.users ? parseCount(record[layout.users] ?? '') : 0;
  if (visitors === null) return `${layout.users} "${record[layout.users as string]}" is not a whole number`;
  return { counts, visitors };
}

/**
 * A row's rollup rows for one scope's values: each metric set whose count column the file has; without
 * any, the scope's first set with visitors alone.
 */
function rowsOf(
  day: string,
  scope: keyof typeof SCOPE_SETS,
  values: readonly (readonly [string, string])[],
  figures: { counts: Map<string, number>; visitors: number },
): ImportedRow[] {
  const sets = SCOPE_SETS[scope].filter(([, column]) => figures.counts.has(column));
  const counted = sets.length > 0 ? sets : [[SCOPE_SETS[scope][0]?.[0] as string, ''] as const];
  const out: ImportedRow[] = [];
  for (const [metricSet, column] of counted) {
    const count = figures.counts.get(column) ?? 0;
    if (count === 0 && figures.visitors === 0) continue;
    for (const [dimension, value] of values) out.push({ day, metricSet, dimension, value, count, visitors: figures.visitors });
  }
  return out;
}

class Ga4Reader {
  private layout: Layout | null = null;
  /** Set when a second table begins: the rest of the file is not read. */
  done = false;

  constructor(private readonly sink: ImportSink) {}

  private trim: ((record: Record<string, string>) => Record<string, string>) | null = null;

  async add({ line, record: raw }: NumberedRecord) {
    this.trim ??= trimmedNames(raw);
    const record = this.trim(raw);
    this.layout ??= layoutOf(Object.keys(record));
    const cells = Object.values(record).map((v) => (v ?? '').trim());
    if (cells.some((c) => TOTAL_ROW.test(c))) return;
    if (cells.filter((c) => HEADER_NAMES.has(c)).length >= 2) {
      this.done = true;
      return this.sink.bad(
        line,
        'Another table begins here: only the first table of a download is read (download each report on its own)',
      );
    }
    const day = dayOfDate(record[DATE] ?? '');
    if (!day) return this.sink.bad(line, `Date "${record[DATE] ?? ''}" is not a day (YYYYMMDD)`);
    const figures = figuresOf(record, this.layout);
    if (typeof figures === 'string') return this.sink.bad(line, figures);
    const rows: ImportedRow[] = [];
    if (this.layout.dimensions.length === 0) rows.push(...rowsOf(day, 'day', [['', '']], figures));
    for (const [column, dimension] of this.layout.dimensions) {
      const values = dimension.read(record[column] ?? '');
      if (values === null) continue;
      if ('error' in values) return this.sink.bad(line, values.error);
      rows.push(...rowsOf(day, dimension.scope, values, figures));
    }
    // Handed over with its record: the job checkpoints past a record once the next one is asked for.
    if (rows.length > 0) await this.sink.rows(rows);
  }
}

export const ga4Format: ImportFormat = {
  source: 'ga4',
  commentPrefix: '#',

  check(_fileName, header) {
    return checkHeader(header);
  },

  async read(_fileName, records, sink) {
    const reader = new Ga4Reader(sink);
    for await (const record of records) {
      await reader.add(record);
      if (reader.done) break;
    }
  },
};
