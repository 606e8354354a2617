// The columns of Google Analytics 4's standard reports as its Download → CSV writes them, by their English UI
// names. The layout and the Pages and screens header come from a real download
// (github.com/project-polymorph/data-analysis, ga_visitor/google_analysis.csv, commit fdb43068, data of
// 2025-01-01 to 2025-02-11: `#` lines, then "Page path and screen class,Views,Active users,…"). The Traffic
// acquisition, Tech and Demographic details headers ("Session default channel group,Sessions,Engaged sessions,…",
// "Country,Active users,New users,…") are as public GA4-reading tools' test files show them (searched
// 2026-11-28); Google's help pages were not at hand to check them against. Each dimension column says which of
// our dimensions it fills and how its values are stored.
import { type Channel, utmSourceFamily } from '../../../core/enrich/index.ts';
import { countryCode } from './countries.ts';
import { browserName, deviceName, systemName } from './software-names.ts';
import type { DimensionValue } from './staged-values.ts';
import { stored, storedPath } from './stored-values.ts';

/**
 * What a dimension is counted by: pages by their views, landing pages and session sources by sessions,
 * the visitor's software and country by either, event names by their events.
 */
export type Ga4Scope = 'page' | 'session' | 'visitor' | 'event' | 'day';

/** The metric sets a scope's rows go to, each with its count column, in order of preference. */
export const SCOPE_SETS: Record<Ga4Scope, readonly (readonly [metricSet: string, countColumn: string])[]> = {
  page: [['pageviews', 'Views']],
  session: [['sessions', 'Sessions']],
  visitor: [
    ['pageviews', 'Views'],
    ['sessions', 'Sessions'],
  ],
  event: [['events', 'Event count']],
  day: [
    ['pageviews', 'Views'],
    ['sessions', 'Sessions'],
  ],
};

/** The visitors of a row: GA4's users, the first of these columns the file has. */
export const USER_COLUMNS = ['Total users', 'Active users', 'Users'] as const;

/** A cell's values, null to leave the row out (no error), or `{ error }` for a bad row. */
type Read = (cell: string) => DimensionValue[] | null | { error: string };

export interface Ga4Dimension {
  scope: Ga4Scope;
  read: Read;
}

/** GA4's placeholders for "no value": stored as '' like a native null. */
const UNSET = new Set(['(not set)', '(none)', '(direct)', '(other)', '']);
const unset = (cell: string) => UNSET.has(cell.trim().toLowerCase());

/** Mediums GA4 makes up itself (no utm_medium was sent): natively these visits have no medium. */
const GA4_MEDIUMS = new Set(['organic', 'referral']);
/** Campaign names GA4 gives traffic without one. */
const GA4_CAMPAIGNS = new Set(['(organic)', '(referral)']);

/** GA4's default channel groups → ours (core/enrich/channel.ts); the groups we do not have are Other. */
const CHANNELS: Record<string, Channel> = {
  direct: 'Direct',
  'organic search': 'Organic Search',
  'paid search': 'Paid Search',
  'organic social': 'Organic Social',
  'paid social': 'Paid Social',
  email: 'Email',
  referral: 'Referral',
};

/** A source as intake names it: a family GA4's source names ("google", "l.facebook.com"), else itself. */
function source(cell: string): string {
  if (unset(cell)) return '';
  const name = cell.trim();
  return stored('pageviews', 'source', utmSourceFamily(name)?.source ?? name);
}

function medium(cell: string): string {
  if (unset(cell) || GA4_MEDIUMS.has(cell.trim().toLowerCase())) return '';
  return stored('pageviews', 'utmMedium', cell.trim());
}

const one =
  (dimension: string, value: (cell: string) => string): Read =>
  (cell) => [[dimension, value(cell)]];

const page = one('page', (cell) => (unset(cell) ? '' : storedPath(cell.trim())));

/**
 * GA4's automatically collected and enhanced measurement events (its help's "Automatically collected events"
 * and "Enhanced measurement" lists): pageviews, visits and clicks counted elsewhere, not the site's own events.
 */
const AUTOMATIC_EVENTS = new Set([
  'page_view',
  'session_start',
  'first_visit',
  'user_engagement',
  'scroll',
  'click',
  'view_search_results',
  'file_download',
  'form_start',
  'form_submit',
  'video_start',
  'video_progress',
  'video_complete',
]);

export const GA4_DIMENSIONS: Record<string, Ga4Dimension> = {
  'Page path and screen class': { scope: 'page', read: page },
  'Page path': { scope: 'page', read: page },
  'Page path + query string': { scope: 'page', read: page },
  // A landing page's sessions are the visits that began there: our sessions by page (their entry page).
  'Landing page': { scope: 'session', read: page },
  'Landing page + query string': { scope: 'session', read: page },
  'Session source': { scope: 'session', read: one('source', source) },
  'Session medium': { scope: 'session', read: one('medium', medium) },
  'Session campaign': {
    scope: 'session',
    read: one('campaign', (cell) =>
      unset(cell) || GA4_CAMPAIGNS.has(cell.trim().toLowerCase()) ? '' : stored('pageviews', 'utmCampaign', cell.trim()),
    ),
  },
  'Session source / medium': {
    scope: 'session',
    read: (cell) => {
      const cut = cell.lastIndexOf(' / ');
      if (cut < 0) return [['source', source(cell)]];
      return [
        ['source', source(cell.slice(0, cut))],
        ['medium', medium(cell.slice(cut + 3))],
      ];
    },
  },
  'Session default channel group': { scope: 'session', read: one('channel', channel) },
  'Session primary channel group (Default Channel Group)': { scope: 'session', read: one('channel', channel) },
  Browser: { scope: 'visitor', read: one('browser', (cell) => stored('pageviews', 'browser', browserName(cell))) },
  'Operating system': { scope: 'visitor', read: one('os', (cell) => stored('pageviews', 'os', systemName(cell))) },
  'Device category': { scope: 'visitor', read: one('device', (cell) => stored('pageviews', 'device', deviceName(cell))) },
  Country: {
    scope: 'visitor',
    read: (cell) => {
      if (unset(cell)) return [['country', '']];
      const code = countryCode(cell);
      return code
        ? [['country', stored('pageviews', 'country', code)]]
        : { error: `Country "${cell}" is no country name we know` };
    },
  },
  'Event name': {
    scope: 'event',
    read: (cell) => {
      const name = cell.trim();
      if (AUTOMATIC_EVENTS.has(name)) return null;
      return name ? [['event', stored('events', 'name', name)]] : { error: 'Event name is empty' };
    },
  },
};

function channel(cell: string): string {
  if (unset(cell)) return '';
  return CHANNELS[cell.trim().toLowerCase()] ?? 'Other';
}

/**
 * Words of a dimension's name: a column with one that this import does not read would be summed over
 * (and its users counted once per value), so such a file is refused rather than misread.
 */
export const DIMENSION_WORDS =
  /\b(path|page|screen|title|name|source|medium|campaign|channel|group|country|region|city|continent|language|browser|system|device|platform|category|hostname|url|link|query|term|content|day|week|month|year|hour|age|gender|interests?|brand|model|version|resolution|id|type|class|location)\b/i;
