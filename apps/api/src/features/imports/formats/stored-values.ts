// Imported values made the way intake stores native ones, so an imported "/pricing" or "Google" groups
// with the native one: the page URL read by core/enrich (path, utm parameters, click id → source and
// channel), then each value bounded and cleaned by its raw column's own rule (@us/db COLUMNS, cleanValue).
import { type AnalyticsTable, COLUMNS, type Column, cleanValue } from '@us/db';
import { pageOf, referrerHost, trafficOf } from '../../../core/enrich/index.ts';

/** The origin imported paths are read against: only the path and query of the URL are kept. */
const BASE = 'https://import.invalid';

const columns = new Map<string, Column<Record<string, unknown>>>();

function columnOf(table: AnalyticsTable, prop: string): Column<Record<string, unknown>> {
  const key = `${table}.${prop}`;
  let column = columns.get(key);
  if (!column) {
    column = (COLUMNS[table] as readonly Column<Record<string, unknown>>[]).find(([, p]) => p === prop);
    if (!column) throw new Error(`no column ${key}`);
    columns.set(key, column);
  }
  return column;
}

/**
 * A value as its raw column stores it ('' for none, as rollups keep a null): `prop` is the row's property
 * (`path`, `source`, `country`…). A required value that cannot be stored is '' too.
 */
export function stored(table: AnalyticsTable, prop: string, value: string | null | undefined): string {
  const column = columnOf(table, prop);
  if (value === null || value === undefined || value === '') return '';
  try {
    const v = cleanValue(column[0], column[2], value);
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

/** What a pageview's page and referrer give the pageviews dimensions, as intake would store them. */
export interface PageTraffic {
  page: string;
  source: string;
  channel: string;
  referrer: string;
  medium: string;
  campaign: string;
}

/**
 * The stored page values of a path (decoded or not: it is read as a URL, as the page script's URL is) with
 * its query string (utm parameters and ad click ids, which only the channel reads) and referrer host.
 */
export function pageTraffic(path: string, query: string, referrerDomain: string | null): PageTraffic {
  // Umami's paths carry the URL's fragment (`/docs#install`): the page script's path never does.
  const cut = path.search(/[?#]/);
  const bare = cut < 0 ? path : path.slice(0, cut);
  const rooted = bare.startsWith('/') ? bare : `/${bare}`;
  const page = pageOf(`${BASE}${rooted}${query ? `?${query}` : ''}`);
  const referrer = referrerDomain ? referrerHost(`https://${referrerDomain}`) : null;
  const { source, channel } = trafficOf(referrer, page.utm, page.click);
  return {
    page: stored('pageviews', 'path', page.path) || '/',
    source: stored('pageviews', 'source', source),
    channel: stored('pageviews', 'channel', channel),
    referrer: stored('pageviews', 'referrerHost', referrer),
    medium: stored('pageviews', 'utmMedium', page.utm.medium),
    campaign: stored('pageviews', 'utmCampaign', page.utm.campaign),
  };
}

/** A page path alone (GA4's page columns), read like a page URL's path: '/' when it has none. */
export function storedPath(path: string): string {
  return pageTraffic(path, '', null).page;
}
