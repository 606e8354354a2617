import { cleanProperties, cleanText, EVENT_VALUE_MAX, LANES } from '@us/shared';
import type { AnalyticsTable } from './db.ts';
import type { AnalyticsRows } from './rows.ts';

/**
 * Every stored column of the raw tables with the kind of value it holds. The same list builds the
 * insert statement and cleans each value so PostgreSQL can always store it: text without control
 * characters and within a length, integers within their column type, two-letter country codes.
 * A value that cannot be made storable where one is required refuses the row (`RowRefused`).
 */
export type ColumnKind =
  | { type: 'text'; max: number; required?: true }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'country' }
  | { type: 'int'; min: number; max: number; required?: true; outside?: 'clamp' | 'null' }
  /** A measure: outside [min, max] (or not finite) it is dropped. */
  | { type: 'double'; min: number; max: number }
  /** `absent`: the value of a row without one (a row buffered before the column existed); default false. */
  | { type: 'bool'; absent?: boolean }
  | { type: 'time' }
  /** Custom properties (key → text), stored as jsonb: cleaned by `cleanProperties`, null when none. */
  | { type: 'props' };

const INT4_MAX = 2_147_483_647;
/** The largest tab page counter stored (`pageviews.tab_page`, smallint); a larger one is stored as null. */
export const TAB_PAGE_MAX = 10_000;
const text = (max: number): ColumnKind => ({ type: 'text', max });
const required = (max: number): ColumnKind => ({ type: 'text', max, required: true });
const int = (min: number, max: number): ColumnKind => ({ type: 'int', min, max });
const count = (max: number): ColumnKind => ({ type: 'int', min: 0, max, required: true });
/** An identifier (not a measure): a value outside the column's range means nothing, so it is dropped. */
const ident = (max: number): ColumnKind => ({ type: 'int', min: 0, max, outside: 'null' });
const LANE = { type: 'enum', values: LANES } as const;
/** A browser's or system's major version (smallint): past 999 it names no real release, so it is stored as null. */
const VERSION = ident(999);
/** Custom properties: a jsonb object of up to 30 key → text pairs (`cleanProperties` in shared). */
const PROPS: ColumnKind = { type: 'props' };
/** Kinds of `events` rows: site events, A/B exposures, element clicks of the page script (never counted as events). */
export const EVENT_KINDS = ['event', 'exposure', 'click'] as const;

export type Column<R> = readonly [column: string, prop: keyof R & string, kind: ColumnKind];

export const COLUMNS: { [T in AnalyticsTable]: readonly Column<AnalyticsRows[T]>[] } = {
  pageviews: [
    ['at', 'at', { type: 'time' }],
    ['pageview_id', 'pageviewId', required(64)],
    ['visitor', 'visitor', required(64)],
    ['session_start', 'sessionStart', { type: 'bool' }],
    ['lane', 'lane', LANE],
    ['path', 'path', required(2048)],
    ['page_type', 'pageType', text(64)],
    ['referrer_host', 'referrerHost', text(253)],
    ['utm_source', 'utmSource', text(256)],
    ['utm_medium', 'utmMedium', text(256)],
    ['utm_campaign', 'utmCampaign', text(256)],
    // utm_source, else the referrer's family ("Google"), else its host (apps/api core/enrich/traffic.ts).
    ['source', 'source', text(64)],
    ['channel', 'channel', text(32)],
    ['country', 'country', { type: 'country' }],
    ['asn', 'asn', ident(INT4_MAX)],
    ['as_org', 'asOrg', text(256)],
    ['device', 'device', required(32)],
    ['browser', 'browser', text(32)],
    ['browser_major', 'browserMajor', VERSION],
    ['os', 'os', text(32)],
    ['os_major', 'osMajor', VERSION],
    ['window_width', 'windowWidth', int(0, 100_000)],
    ['language', 'language', text(35)],
    ['timezone', 'timezone', text(64)],
    ['tls', 'tls', text(32)],
    ['bot_name', 'botName', text(128)],
    ['bot_category', 'botCategory', text(64)],
    // false: the page had data-journeys="off" (left out of journeys only; counted everywhere else).
    ['journeys', 'journeys', { type: 'bool', absent: true }],
    // The page script's per-tab counter (1 = where a visit began): past TAB_PAGE_MAX it means nothing, so null.
    ['tab_page', 'tabPage', { type: 'int', min: 1, max: TAB_PAGE_MAX, outside: 'null' }],
    ['props', 'props', PROPS],
  ],
  events: [
    ['at', 'at', { type: 'time' }],
    ['pageview_id', 'pageviewId', required(64)],
    ['visitor', 'visitor', required(64)],
    ['lane', 'lane', LANE],
    ['path', 'path', required(2048)],
    ['name', 'name', required(128)],
    ['label', 'label', text(256)],
    ['value', 'value', { type: 'double', min: -EVENT_VALUE_MAX, max: EVENT_VALUE_MAX }],
    ['kind', 'kind', { type: 'enum', values: EVENT_KINDS }],
    ['experiment', 'experiment', text(64)],
    ['variant', 'variant', text(64)],
    ['country', 'country', { type: 'country' }],
    ['device', 'device', required(32)],
    ['browser', 'browser', text(32)],
    ['browser_major', 'browserMajor', VERSION],
    ['os', 'os', text(32)],
    ['os_major', 'osMajor', VERSION],
    ['props', 'props', PROPS],
  ],
  requests: [
    ['at', 'at', { type: 'time' }],
    ['method', 'method', required(16)],
    ['path', 'path', required(2048)],
    ['status', 'status', { type: 'int', min: 100, max: 599, required: true }],
    ['cache', 'cache', text(32)],
    ['duration_ms', 'durationMs', count(INT4_MAX)],
    ['lane', 'lane', LANE],
    ['kind', 'kind', { type: 'enum', values: ['browser', 'bot', 'verified-bot'] }],
    ['bot_name', 'botName', text(128)],
    ['bot_category', 'botCategory', text(64)],
    ['verified', 'verified', { type: 'bool' }],
    ['country', 'country', { type: 'country' }],
    ['asn', 'asn', ident(INT4_MAX)],
    ['as_org', 'asOrg', text(256)],
    ['tls', 'tls', text(32)],
    ['decision', 'decision', text(32)],
    ['reason', 'reason', text(256)],
    ['risk', 'risk', int(-1, 100)],
  ],
  page_leaves: [
    ['at', 'at', { type: 'time' }],
    ['pageview_id', 'pageviewId', required(64)],
    ['lane', 'lane', LANE],
    ['scroll_depth', 'scrollDepth', count(100)],
    ['time_on_page_ms', 'timeOnPageMs', count(INT4_MAX)],
    ['interacted', 'interacted', { type: 'bool' }],
  ],
};

/**
 * A row that cannot be stored as it is (a required value missing or unusable). Carries the SQLSTATE
 * of an invalid value, so the flusher treats it like PostgreSQL refusing the row: set aside, never retried.
 */
export class RowRefused extends Error {
  readonly code = '22023';
  constructor(column: string, why: string) {
    super(`${column}: ${why}`);
    this.name = 'RowRefused';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The last site id `uuidValue` found valid (a valid one to start with): a busy site's rows all carry it.
 * Row ids are not kept: each is new, and one kept between two rows' site ids would push the site's out.
 */
let lastSiteId = '00000000-0000-0000-0000-000000000000';

/** A site id or row id as stored (uuid), or `RowRefused`. */
export function uuidValue(column: string, value: unknown): string {
  if (value === lastSiteId) return value;
  if (typeof value === 'string' && UUID.test(value)) {
    if (column === 'site_id') lastSiteId = value;
    return value;
  }
  throw new RowRefused(column, 'not a uuid');
}

/** Instants outside these years name no real visit (and some PostgreSQL cannot even store). */
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

/** An instant as stored: a valid Date within sane years (a JSON string from a buffer is revived), or `RowRefused`. */
export function timeValue(column: string, value: unknown): Date {
  const d = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  const t = d?.getTime() ?? Number.NaN;
  if (!d || Number.isNaN(t)) throw new RowRefused(column, 'not a valid time');
  if (t < EARLIEST || t > LATEST) throw new RowRefused(column, 'outside the years 2000 to 9999');
  return d;
}

/** One value made storable in its column, or `RowRefused` when a required one cannot be. */
export function cleanValue(column: string, kind: ColumnKind, value: unknown): unknown {
  const absent = value === undefined || value === null;
  switch (kind.type) {
    case 'time':
      return timeValue(column, value);
    case 'bool':
      return typeof value === 'boolean' ? value : (kind.absent ?? false);
    case 'enum':
      if (typeof value === 'string' && kind.values.includes(value)) return value;
      throw new RowRefused(column, `not one of ${kind.values.join(', ')}`);
    case 'country':
      return typeof value === 'string' && /^[A-Za-z0-9]{2}$/.test(value) ? value.toUpperCase() : null;
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) && value >= kind.min && value <= kind.max ? value : null;
    case 'int': {
      const n = typeof value === 'number' ? Math.trunc(value) : Number.NaN;
      if (Number.isFinite(n) && kind.outside === 'null' && (n < kind.min || n > kind.max)) return null;
      if (Number.isFinite(n)) return Math.min(kind.max, Math.max(kind.min, n));
      if (kind.required) throw new RowRefused(column, 'not a number');
      return null;
    }
    case 'props':
      // Cleaned again, so a row built by a caller that skipped the intake is bounded too.
      return absent ? null : cleanProperties(value).props;
    case 'text': {
      if (absent || typeof value !== 'string') {
        if (kind.required) throw new RowRefused(column, 'missing');
        return null;
      }
      return cleanText(value, kind.max);
    }
  }
}

/**
 * `row` with every value made storable, in place (the intake's cleaning; the insert cleans each value again,
 * so rows buffered by an older version are safe too). Pass a row just built: a copy of each collect report's
 * row was garbage on every report. Throws `RowRefused` for a row that cannot be, its values then part cleaned.
 */
export function cleanRow<T extends AnalyticsTable>(table: T, row: AnalyticsRows[T]): AnalyticsRows[T] {
  const out = row as unknown as Record<string, unknown>;
  out.siteId = uuidValue('site_id', row.siteId);
  if (row.id !== undefined) out.id = uuidValue('id', row.id);
  const cols = COLUMNS[table] as readonly Column<Record<string, unknown>>[];
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c] as Column<Record<string, unknown>>;
    out[col[1]] = cleanColumn(col, out);
  }
  return row;
}

/**
 * The row's value of one column made storable (`cleanValue`), for loops over every column of every row. The
 * tuple is read by index: an array pattern runs the iterator protocol, garbage for each column of each row
 * (docs/performance/history.md, "What a collect report allocates").
 */
export function cleanColumn(col: Column<Record<string, unknown>>, row: Record<string, unknown>): unknown {
  return cleanValue(col[0], col[2], row[col[1]]);
}
