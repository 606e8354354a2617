// Umami's data export: one CSV of website events, one row per pageview or event with its session's
// values beside it. Its columns are those of Umami's `website_event` table with the session's
// (db/clickhouse/schema.sql of github.com/umami-software/umami, commit f6a6d2cc of 2026-03-05; the same
// names in prisma/schema.prisma's `website_event` and `session`, commit 534af988 of 2026-03-12). Umami Cloud's
// export (Settings → Data → Export, content/cloud/export-data.mdx of umami-software/docs, commit df9c5a67) is a
// gzip-compressed CSV of these rows whose exact column list Umami does not document: columns are found by
// name, and only four are required.
// Values are read the way Umami's collector wrote them (src/app/api/send/route.ts, src/lib/detect.ts at
// commit c0ea3aef, 2026-05-14): `url_path` is the decoded path with the fragment, `url_query` the query
// string without `?`, `referrer_domain` the referrer's host without `www.`, `event_type` 1 for a pageview and
// 2 for a custom event (3 link, 4 pixel, 5 performance: not visits to the site, skipped).
//
// Rows are raw records: each becomes staged parts (the job counts distinct `session_id`s as visitors). Days
// are the UTC day of `created_at`: a format is given no site time zone.
import { instantOfTimestamp, utcDay } from './days.ts';
import type { ImportFormat, ImportSink, NumberedRecord, StagedRecord } from './format.ts';
import { trimmedNames } from './header-names.ts';
import { browserName, deviceName, systemName } from './software-names.ts';
import { type DimensionValue, stagedOf } from './staged-values.ts';
import { pageTraffic, stored } from './stored-values.ts';

/** The columns without which no figure can be read. */
export const UMAMI_REQUIRED_COLUMNS = ['created_at', 'session_id', 'event_type', 'url_path'] as const;

/** A session or visit id: printable characters without spaces, at most 100 (Umami's are uuids). */
const ID = /^[\x21-\x7e]{1,100}$/;

/** Columns that add to the page URL what intake reads from it: utm parameters and ad click ids. */
const QUERY_COLUMNS = ['utm_source', 'utm_medium', 'utm_campaign', 'gclid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id', 'twclid'];

const PAGEVIEW = 1;
const CUSTOM_EVENT = 2;
/** Link, pixel and performance records (Umami's EVENT_TYPE): no visit to the site's pages. */
const NOT_VISITS = new Set([3, 4, 5]);

/** Staged parts handed to the sink at once. */
const BATCH = 2_000;
/**
 * Visits kept open for their first and last pageview. Past this many, the ones begun earliest in the file
 * are counted as they stand: exact for an export in time order (Umami's ClickHouse orders by hour), an
 * approximation of the entry and exit page for a shuffled one that large.
 */
const MAX_OPEN_VISITS = 100_000;
/**
 * Visits counted early that a later pageview must not open again. The most recently closed are remembered:
 * a file of millions of one-pageview visits (5M rows an import) would otherwise hold every visit's key, some
 * 700 MB. A visit whose pageviews lie further apart in the file than this is counted twice.
 */
const MAX_CLOSED_VISITS = 2 * MAX_OPEN_VISITS;

/** What one visit counts as a session, once all its pageviews are read. */
interface Visit {
  at: number;
  day: string;
  values: DimensionValue[];
  visitor: string;
  lastAt: number;
  exitPage: string;
}

/** Which optional columns the file has: a dimension with no column gives no rows (not rows of '' values). */
interface Columns {
  referrer: boolean;
  query: boolean;
  visit: boolean;
  software: { country: boolean; device: boolean; browser: boolean; os: boolean; language: boolean };
}

function columnsOf(record: Record<string, string>): Columns {
  const has = (name: string) => name in record;
  return {
    referrer: has('referrer_domain'),
    query: has('url_query') || QUERY_COLUMNS.some(has),
    visit: has('visit_id'),
    software: {
      country: has('country'),
      device: has('device'),
      browser: has('browser'),
      os: has('os'),
      language: has('language'),
    },
  };
}

/** The page URL's query string as the collector saw it: `url_query`, with the utm and click id columns it lacks. */
function queryOf(record: Record<string, string>): string {
  const params = new URLSearchParams(record.url_query ?? '');
  for (const name of QUERY_COLUMNS) {
    const value = record[name];
    if (value && !params.has(name)) params.set(name, value);
  }
  return params.toString();
}

/** The visitor's values, which every pageview and event of the session carries. */
function sessionValues(record: Record<string, string>, has: Columns['software'], table: 'pageviews' | 'events') {
  const values: DimensionValue[] = [];
  if (has.country) values.push(['country', stored(table, 'country', record.country)]);
  if (has.device) values.push(['device', stored(table, 'device', deviceName(record.device))]);
  if (has.browser) values.push(['browser', stored(table, 'browser', browserName(record.browser))]);
  if (has.os) values.push(['os', stored(table, 'os', systemName(record.os))]);
  if (has.language && table === 'pageviews') values.push(['language', stored(table, 'language', record.language)]);
  return values;
}

function pageviewValues(record: Record<string, string>, has: Columns): { page: string; values: DimensionValue[] } {
  const t = pageTraffic(record.url_path ?? '', has.query ? queryOf(record) : '', record.referrer_domain || null);
  const values: DimensionValue[] = [['page', t.page]];
  if (has.referrer) values.push(['source', t.source], ['channel', t.channel], ['referrer', t.referrer]);
  if (has.query) values.push(['medium', t.medium], ['campaign', t.campaign]);
  values.push(...sessionValues(record, has.software, 'pageviews'));
  return { page: t.page, values };
}

/** Reads one file's records; the visits stay open until the file ends (or MAX_OPEN_VISITS). */
export class UmamiReader {
  private columns: Columns | null = null;
  private batch: StagedRecord[] = [];
  private readonly open = new Map<string, Visit>();
  private readonly closed = new Set<string>();

  constructor(
    private readonly sink: ImportSink,
    private readonly bounds = { open: MAX_OPEN_VISITS, closed: MAX_CLOSED_VISITS },
  ) {}

  /** Visits held in memory: open ones and those remembered as counted. */
  get visitsHeld(): number {
    return this.open.size + this.closed.size;
  }

  private trim: ((record: Record<string, string>) => Record<string, string>) | null = null;

  async add({ line, record: raw }: NumberedRecord) {
    this.trim ??= trimmedNames(raw);
    const record = this.trim(raw);
    this.columns ??= columnsOf(record);
    const at = instantOfTimestamp(record.created_at ?? '');
    if (at === null) return this.sink.bad(line, `created_at "${record.created_at ?? ''}" is not a time (2024-05-01 12:34:56)`);
    const visitor = record.session_id?.trim();
    if (!visitor) return this.sink.bad(line, 'session_id is empty');
    // Umami's ids are uuids: anything else is no id (a NUL in one reached PostgreSQL's text and failed the import).
    if (!ID.test(visitor)) return this.sink.bad(line, 'session_id is no id (at most 100 printable characters)');
    if (record.visit_id && !ID.test(record.visit_id))
      return this.sink.bad(line, 'visit_id is no id (at most 100 printable characters)');
    const type = Number(record.event_type);
    const day = utcDay(at);
    if (type === PAGEVIEW) {
      const { page, values } = pageviewValues(record, this.columns);
      this.batch.push(...stagedOf(day, 'pageviews', values, visitor));
      // Without visit ids (Umami before 2.11), a visitor's day is taken as one visit.
      this.visit(this.columns.visit && record.visit_id ? record.visit_id : `${visitor}/${day}`, {
        at,
        day,
        values,
        visitor,
        page,
      });
    } else if (type === CUSTOM_EVENT) {
      const name = stored('events', 'name', record.event_name);
      if (!name) return this.sink.bad(line, 'event_name is empty: a custom event (event_type 2) needs its name');
      const values: DimensionValue[] = [
        ['event', name],
        ['kind', 'event'],
        ['page', pageTraffic(record.url_path ?? '', '', null).page],
        ...sessionValues(record, this.columns.software, 'events'),
      ];
      this.batch.push(...stagedOf(day, 'events', values, visitor));
    } else if (!NOT_VISITS.has(type)) {
      return this.sink.bad(line, `event_type "${record.event_type ?? ''}" is not one Umami writes (1 pageview, 2 custom event)`);
    }
    if (this.batch.length >= BATCH) await this.flush();
  }

  /** Notes a pageview of a visit: its earliest pageview is where it began, its latest where it ended. */
  private visit(key: string, pv: { at: number; day: string; values: DimensionValue[]; visitor: string; page: string }) {
    if (this.closed.has(key)) return;
    const known = this.open.get(key);
    if (!known) {
      this.open.set(key, { at: pv.at, day: pv.day, values: pv.values, visitor: pv.visitor, lastAt: pv.at, exitPage: pv.page });
      if (this.open.size > this.bounds.open) this.close(this.open.keys().next().value as string);
      return;
    }
    if (pv.at < known.at) Object.assign(known, { at: pv.at, day: pv.day, values: pv.values });
    if (pv.at >= known.lastAt) Object.assign(known, { lastAt: pv.at, exitPage: pv.page });
  }

  /** Counts a visit once, at its first pageview's values and day, and at its exit page. */
  private close(key: string) {
    const v = this.open.get(key) as Visit;
    this.open.delete(key);
    this.closed.add(key);
    if (this.closed.size > this.bounds.closed) this.closed.delete(this.closed.values().next().value as string);
    this.batch.push(...stagedOf(v.day, 'sessions', [...v.values, ['exit_page', v.exitPage]], v.visitor));
  }

  private async flush() {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    await this.sink.staged(batch);
  }

  async end() {
    for (const key of [...this.open.keys()]) {
      this.close(key);
      if (this.batch.length >= BATCH) await this.flush();
    }
    await this.flush();
  }
}

export const umamiFormat: ImportFormat = {
  source: 'umami',
  holdsRecords: true,

  check(_fileName, header) {
    const columns = new Set(header.map((h) => h.trim()));
    if (columns.has('x') && columns.has('y') && !columns.has('created_at')) {
      return "This is a table of Umami's dashboard download (x, y: totals without days). Import the data export of website events instead (Umami Cloud: Settings → Data → Export).";
    }
    const missing = UMAMI_REQUIRED_COLUMNS.filter((c) => !columns.has(c));
    if (missing.length === 0) return null;
    return `Umami's export of website events has the columns ${UMAMI_REQUIRED_COLUMNS.join(', ')}: this file lacks ${missing.join(', ')}.`;
  },

  async read(_fileName, records, sink) {
    const reader = new UmamiReader(sink);
    for await (const record of records) await reader.add(record);
    await reader.end();
  },
};
