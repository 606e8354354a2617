import { type Channel, channelOf } from './channel.ts';
import type { ClickKind } from './click-ids.ts';
import { referrerFamily, utmSourceFamily } from './referrers.ts';
import type { Utm } from './url.ts';

/**
 * The source and channel a pageview is stored with. Source: utm_source when the page URL has one, else
 * the referrer's family ("Google" for every Google search host), else the referrer's host; null for none.
 * A referrer on one of the site's own hostnames is a host like any other, as before channels: its host
 * is the source, and its channel Referral.
 */
export function trafficOf(
  referrerHost: string | null,
  utm: Utm,
  click: ClickKind | null,
): { source: string | null; channel: Channel } {
  const referrer = referrerFamily(referrerHost);
  const channel = channelOf({ referrerHost, referrer, utm, utmSource: utmSourceFamily(utm.source), click });
  return { source: utm.source ?? referrer?.source ?? referrerHost, channel };
}
