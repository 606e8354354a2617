import { type BotInfo, classifyUserAgent, isHostingNetwork } from '@us/protection';
import { type DeviceClass, deviceClassOf } from './device.ts';
import { countryOf } from './geo.ts';
import { networkOf } from './network.ts';
import { type ClientHints, softwareOf } from './software.ts';

/**
 * Enrichment of one collect request: everything derived from the client address and user agent.
 * The address and the user-agent string go in and never come out: the result holds only derived values.
 */
export interface EnrichInput {
  ip?: string | null;
  ua?: string | null;
  /** The client hints the browser sent beside its user agent (page reports only). */
  hints?: ClientHints;
  /** Window width in CSS pixels (page reports only). */
  width?: number | null;
  /**
   * Values already known from a trusted edge (proxy headers `x-svc-client-country` / `-asn` / `-as-org`, or
   * the edge SDK record). Each one replaces the local lookup; only pass them after checking the site secret.
   */
  known?: { country?: string | null; asn?: number | null; asOrg?: string | null };
}

export interface Enrichment {
  country: string | null;
  asn: number | null;
  asOrg: string | null;
  hosting: boolean;
  device: DeviceClass;
  /** Browser and operating system names and major versions (software.ts); null for bots and client software. */
  browser: string | null;
  browserMajor: number | null;
  os: string | null;
  osMajor: number | null;
  kind: 'browser' | 'bot';
  bot: BotInfo | null;
  automation: string[];
}

export function enrich({ ip, ua, hints, width, known }: EnrichInput): Enrichment {
  const country = known?.country && /^[A-Za-z]{2}$/.test(known.country) ? known.country.toUpperCase() : countryOf(ip);
  const net = known?.asn != null && known.asn > 0 ? { asn: known.asn, org: known.asOrg ?? '' } : networkOf(ip);
  const cls = classifyUserAgent(ua);
  const notPerson = cls.kind === 'bot' || cls.bot?.category === 'tool';
  // A crawler's "Chrome on Android" is a costume: bots get no browser or system.
  const software = notPerson ? null : softwareOf(ua, hints);
  return {
    country,
    asn: net?.asn ?? null,
    asOrg: net?.org || null,
    hosting: isHostingNetwork(net),
    // Client software (curl and the like) is no device a person holds: it counts with the bots.
    device: deviceClassOf(ua, width, notPerson),
    browser: software?.browser ?? null,
    browserMajor: software?.browserMajor ?? null,
    os: software?.os ?? null,
    osMajor: software?.osMajor ?? null,
    kind: cls.kind,
    bot: cls.bot ?? null,
    automation: cls.automation,
  };
}

export { type BotCategory, type BotInfo, classifyUserAgent, HOSTING_ASNS, isHostingNetwork, type UaClass } from '@us/protection';
export { CHANNELS, type Channel } from './channel.ts';
export type { ClickKind } from './click-ids.ts';
export { ipDataDated } from './dated.ts';
export { type DeviceClass, deviceClassOf } from './device.ts';
export { countryOf } from './geo.ts';
export { loadNetworks, type Network, networkOf } from './network.ts';
export { REFERRER_LIST, type ReferrerFamily, referrerFamily, utmSourceFamily } from './referrers.ts';
export { BROWSERS, type ClientHints, type Software, SYSTEMS, softwareOf } from './software.ts';
export { trafficOf } from './traffic.ts';
export { type PageUrl, pageOf, readPageUrl, referrerHost, type Utm, utmOf } from './url.ts';
export { dailySalt, SALT_TTL_SECONDS, visitorCode } from './visitor.ts';
