import type { Lane } from '@us/shared';

/** The raw analytics rows as the write path carries them (see `columns.ts` for how each is stored). */

/** One pageview as stored. `day` is derived from `at` (UTC); `id` is made when absent. */
export interface PageviewRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  visitor: string;
  sessionStart: boolean;
  lane: Lane;
  path: string;
  pageType?: string | null;
  referrerHost?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  /** utm_source, else the referrer's family, else its host; null when none (rows before channels: null). */
  source?: string | null;
  /** Direct, Organic Search, Paid Search, … (docs/product/channels.md); null on rows before channels. */
  channel?: string | null;
  country?: string | null;
  asn?: number | null;
  asOrg?: string | null;
  device: string;
  /** Browser and operating system names (a short list) and major versions, derived from the user agent: never the string. */
  browser?: string | null;
  browserMajor?: number | null;
  os?: string | null;
  osMajor?: number | null;
  windowWidth?: number | null;
  language?: string | null;
  timezone?: string | null;
  tls?: string | null;
  botName?: string | null;
  botCategory?: string | null;
  /** false when the page had data-journeys="off"; absent = true. */
  journeys?: boolean;
  /** The per-tab page counter (1 = where a visit began in the tab); null when unknown or past 10,000. */
  tabPage?: number | null;
  /** Custom properties (key → text, at most 30), cleaned at intake; null when none. */
  props?: Record<string, string> | null;
}

export interface EventRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  visitor: string;
  lane: Lane;
  path: string;
  name: string;
  label?: string | null;
  value?: number | null;
  /** `click`: an element click of the page script (`name` is its label); see `EVENT_KINDS`. */
  kind: 'event' | 'exposure' | 'click';
  experiment?: string | null;
  variant?: string | null;
  country?: string | null;
  device: string;
  /** Browser and operating system names (a short list) and major versions, derived from the user agent: never the string. */
  browser?: string | null;
  browserMajor?: number | null;
  os?: string | null;
  osMajor?: number | null;
  /** Custom properties (key → text, at most 30), cleaned at intake; null when none. */
  props?: Record<string, string> | null;
}

export interface RequestRow {
  id?: string;
  siteId: string;
  at: Date;
  method: string;
  path: string;
  status: number;
  cache?: string | null;
  durationMs: number;
  lane: Lane;
  kind: 'browser' | 'bot' | 'verified-bot';
  botName?: string | null;
  botCategory?: string | null;
  verified: boolean;
  country?: string | null;
  asn?: number | null;
  asOrg?: string | null;
  tls?: string | null;
  /** The bot-protection action (allow, challenge, deny) and why. */
  decision?: string | null;
  reason?: string | null;
  /** 0-100 for a browser, -1 for a bot. */
  risk?: number | null;
}

/** The leave report of a pageview: joined to `pageviews` on (site_id, pageview_id). */
export interface PageLeaveRow {
  id?: string;
  siteId: string;
  at: Date;
  pageviewId: string;
  lane: Lane;
  /** Deepest scroll position, percent of the page. */
  scrollDepth: number;
  /** Visible time on the page, milliseconds. */
  timeOnPageMs: number;
  interacted: boolean;
}

export interface AnalyticsRows {
  pageviews: PageviewRow;
  events: EventRow;
  requests: RequestRow;
  page_leaves: PageLeaveRow;
}
