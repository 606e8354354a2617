import {
  type AnalyticsRows,
  type AnalyticsTable,
  cleanRow,
  type EventRow,
  type PageLeaveRow,
  type PageviewRow,
  type RequestRow,
  type Site,
} from '@us/db';
import { cleanProperties, clickLabel, type Lane, type PageReport, type PropertyDrop, type RequestRecord } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { inAnyNetwork } from '../../core/enrich/cidr.ts';
import {
  type ClickKind,
  dailySalt,
  type Enrichment,
  enrich,
  referrerHost,
  trafficOf,
  type Utm,
  visitorCode,
} from '../../core/enrich/index.ts';
import { propertiesDropped } from '../../core/observe/metrics.ts';
import { internalKeyOf } from '../../features/internal-link/internal-key.ts';
import { verifyInternalMark } from '../../features/internal-link/mark.ts';
import { decisionOfRecord } from '../../features/protection/record-decision.ts';
import { tlsSummary, tlsText } from '../../features/protection/tls.ts';
import { readSettings } from '../../features/sites/settings-values.ts';
import type { Client } from './identify.ts';
import { pageDataOf, pageviewProperties } from './page-data.ts';

/**
 * Classify: the third stage of the collect path. Enrichment (country, network, device, browser, bot) and the
 * lane of each report or record, then the rows to store, cleaned and bounded for their columns. The
 * client's address and user agent are inputs only: no row carries them.
 */

function laneOf(e: Enrichment, internal: boolean): Lane {
  if (internal) return 'internal';
  if (e.kind === 'bot' || e.automation.length > 0 || e.hosting) return 'bot';
  return 'human';
}

/** The site's bot-protection mode as stored (off when unset). */
export function protectionModeOf(site: Site) {
  return readSettings(site.settings).bot.mode;
}

export function networksOf(site: Site): string[] {
  const n = (site.settings as { internalNetworks?: unknown }).internalNetworks;
  return Array.isArray(n) ? n.filter((x): x is string => typeof x === 'string') : [];
}

/** Rows of one table, ready to queue. */
export interface TableRows<T extends AnalyticsTable = AnalyticsTable> {
  table: T;
  rows: AnalyticsRows[T][];
}

const rowsOf = <T extends AnalyticsTable>(table: T, rows: AnalyticsRows[T][]): TableRows<T> => ({
  table,
  rows: rows.map((r) => cleanRow(table, r)),
});

/**
 * A report's custom properties as stored (`cleanProperties`), the dropped ones counted by reason
 * (`us_properties_dropped_total`: the privacy guard's e-mail addresses and digit runs, and what did not fit).
 */
function propertiesOf(raw: unknown): Record<string, string> | null {
  if (raw === undefined) return null;
  const { props, dropped } = cleanProperties(raw);
  for (const reason of Object.keys(dropped) as PropertyDrop[]) {
    if (dropped[reason]) propertiesDropped.inc({ reason }, dropped[reason]);
  }
  return props;
}

/** The fields an event row shares with its pageview (built only for events, clicks and exposures). */
function eventFields(site: Site, at: Date, pageviewId: string, lane: Lane, visitor: string, path: string, e: Enrichment) {
  return {
    siteId: site.id,
    at,
    pageviewId,
    lane,
    visitor,
    path,
    country: e.country,
    device: e.device,
    browser: e.browser,
    browserMajor: e.browserMajor,
    os: e.os,
    osMajor: e.osMajor,
  };
}

/** The rows one page report adds: a pageview and its A/B exposures, an event, a click, or a leave report. */
export async function rowsOfReport(
  deps: Pick<Deps, 'hot' | 'ciphers'>,
  site: Site,
  r: PageReport,
  client: Client,
  at: Date,
  /** The report's URL as the hostname check read it (`readPageUrl`): it is not parsed again here. */
  page: { path: string; utm: Utm; click: ClickKind | null },
): Promise<TableRows[]> {
  const e = enrich({ ip: client.ip, ua: client.ua, hints: client.hints, width: r.t === 'pv' ? r.w : null, known: client.known });
  const internal =
    inAnyNetwork(networksOf(site), client.ip) ||
    (r.m ? verifyInternalMark({ id: site.id, internalKey: internalKeyOf(deps.ciphers, site) }, r.m) : false);
  const lane = laneOf(e, internal);
  const { path, utm, click } = page;
  if (r.t === 'leave') {
    const leave: PageLeaveRow = {
      siteId: site.id,
      at,
      pageviewId: r.id,
      lane,
      scrollDepth: r.s,
      timeOnPageMs: r.d,
      interacted: r.i === 1,
    };
    return [rowsOf('page_leaves', [leave])];
  }
  const visitor = visitorCode(await dailySalt(deps.hot), site.id, client.ip, client.ua);
  if (r.t === 'ev') {
    const ev: EventRow = {
      ...eventFields(site, at, r.id, lane, visitor, path, e),
      name: r.e,
      label: r.el ?? null,
      value: r.ev ?? null,
      kind: 'event',
      props: propertiesOf(r.pr),
    };
    return [rowsOf('events', [ev])];
  }
  if (r.t === 'c') {
    // An element click: only for journeys at element zoom, never counted as an event (`kind = 'click'`).
    const click: EventRow = { ...eventFields(site, at, r.id, lane, visitor, path, e), name: clickLabel(r.e), kind: 'click' };
    return [rowsOf('events', [click])];
  }
  const referrer = referrerHost(r.r);
  const tag = pageDataOf(r.pd);
  const traffic = trafficOf(referrer, utm, click);
  // Every field named, no spreads: a literal that spreads objects in between grows its property store a few
  // fields at a time, garbage on every report (docs/performance/history.md, "What a collect report allocates").
  const pageview: PageviewRow = {
    siteId: site.id,
    at,
    pageviewId: r.id,
    lane,
    visitor,
    sessionStart: r.n === 1,
    tabPage: r.n,
    path,
    pageType: r.p ?? null,
    referrerHost: referrer,
    utmSource: utm.source,
    utmMedium: utm.medium,
    utmCampaign: utm.campaign,
    source: traffic.source,
    channel: traffic.channel,
    country: e.country,
    asn: e.asn,
    asOrg: e.asOrg,
    device: e.device,
    browser: e.browser,
    browserMajor: e.browserMajor,
    os: e.os,
    osMajor: e.osMajor,
    windowWidth: r.w,
    language: r.l || null,
    timezone: r.z || null,
    tls: tlsText(client.tls),
    botName: e.bot?.name ?? null,
    botCategory: e.bot?.category ?? null,
    journeys: r.j !== 1,
    props: propertiesOf(pageviewProperties(r.pr, tag.props)),
  };
  const exposed = r.x ?? tag.exposures;
  const pageviews = rowsOf('pageviews', [pageview]);
  if (!exposed) return [pageviews];
  const exposures = Object.entries(exposed).map(
    ([experiment, variant]): EventRow => ({
      ...eventFields(site, at, r.id, lane, visitor, path, e),
      name: experiment,
      kind: 'exposure',
      experiment,
      variant,
    }),
  );
  return exposures.length ? [pageviews, rowsOf('events', exposures)] : [pageviews];
}

/**
 * The stored row of one edge request record, with the gate's decision (`decisionOfRecord`: a record without
 * one, or from a site whose protection is off, is stored as served and says so) and the TLS summary.
 */
export function rowOfRecord(site: Site, networks: string[], rec: RequestRecord, mode = protectionModeOf(site)): RequestRow {
  const e = enrich({ ip: rec.ip, ua: rec.ua, known: { country: rec.country, asn: rec.asn, asOrg: rec.asOrg } });
  const kind: RequestRow['kind'] = rec.verifiedBot ? 'verified-bot' : e.kind === 'bot' ? 'bot' : 'browser';
  return cleanRow('requests', {
    siteId: site.id,
    at: new Date(rec.at),
    method: rec.method,
    path: rec.path,
    status: rec.status,
    cache: rec.cache ?? null,
    durationMs: rec.ms,
    lane: laneOf(e, inAnyNetwork(networks, rec.ip)),
    kind,
    botName: e.bot?.name ?? null,
    botCategory: e.bot?.category ?? null,
    verified: rec.verifiedBot === true,
    country: e.country,
    asn: e.asn,
    asOrg: e.asOrg,
    tls: tlsText(tlsSummary(rec.tls, rec.tlsClass)),
    ...decisionOfRecord(mode, rec),
  });
}
