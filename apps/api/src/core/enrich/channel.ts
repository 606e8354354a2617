import type { ClickKind } from './click-ids.ts';
import type { ReferrerFamily } from './referrers.ts';
import type { Utm } from './url.ts';

/**
 * The channel of a pageview: how its visitor came, from the referrer's family, the utm parameters and the
 * page URL's ad click id. The rules, first match wins, are the table of docs/product/channels.md.
 */
export const CHANNELS = [
  'Paid Search',
  'Paid Social',
  'AI assistants',
  'Organic Search',
  'Organic Social',
  'Email',
  'Direct',
  'Referral',
  'Other',
] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ChannelInput {
  /** The referrer's host (null: none), and its family when the referrer list knows it. */
  referrerHost: string | null;
  referrer: ReferrerFamily | null;
  utm: Utm;
  /** The family utm_source names, when it names one (`utmSourceFamily`). */
  utmSource: ReferrerFamily | null;
  click: ClickKind | null;
}

const PAID_SEARCH_MEDIUM = /^(cpc|ppc|paid|paidsearch|paid[-_ ]?search)$/i;
const PAID_SOCIAL_MEDIUM = /^(cpc|ppc|paid|paidsocial|paid[-_ ]?social)$/i;
const SOCIAL_MEDIUM = /^(social|social[-_ ]?network|social[-_ ]?media|sm)$/i;
const EMAIL_MEDIUM = /^(e[-_ ]?mail|newsletter)$/i;

export function channelOf({ referrerHost, referrer, utm, utmSource, click }: ChannelInput): Channel {
  const medium = utm.medium;
  // "The source": what utm_source names, else the referrer.
  const source = (utmSource ?? referrer)?.medium ?? null;
  // A referrer's medium, or a utm_source's when no utm_medium says otherwise (`?utm_source=twitter`).
  const came = (m: string) => referrer?.medium === m || (medium === null && utmSource?.medium === m);

  if (click === 'search' || (medium && PAID_SEARCH_MEDIUM.test(medium) && source === 'search')) return 'Paid Search';
  if (click === 'paid-social' || (medium && PAID_SOCIAL_MEDIUM.test(medium) && source === 'social')) return 'Paid Social';
  if (source === 'ai' || referrer?.medium === 'ai') return 'AI assistants';
  if (came('search') || (medium && medium.toLowerCase() === 'organic')) return 'Organic Search';
  if (came('social') || (medium && SOCIAL_MEDIUM.test(medium)) || click === 'facebook') return 'Organic Social';
  if (came('email') || (medium && EMAIL_MEDIUM.test(medium))) return 'Email';
  if (!referrerHost && !utm.source && !utm.medium && !utm.campaign) return 'Direct';
  if (referrerHost) return 'Referral';
  return 'Other';
}
