import { utcDay } from '@us/db';
import { behaviourCode, dayKeyOf } from '@us/protection';
import { dailySalt } from '../../core/enrich/visitor.ts';
import type { HotStore } from '../../core/hot/store.ts';

/**
 * The one-way, daily-rotating code behaviour memory is filed under (spec §2): HMAC of the address and user
 * agent under the site's key of the day, itself derived from the day's salt. The service hands edges the
 * site's key of the day (never the salt), so both compute the same code; once the salt is gone (48 h), no
 * code can be linked to an address again. Codes change at midnight UTC: memory is of the current day.
 */

/** Derived keys by day and site, with the salt each came from: a node's own salt, replaced by the shared one, makes a new key. */
const keys = new Map<string, { salt: string; key: Promise<string> }>();

/** The site's behaviour key of the UTC day `now` falls in (cached per node; a few hundred bytes per site). */
export async function dayKeyFor(hot: HotStore, siteId: string, now = Date.now()): Promise<{ day: string; dayKey: string }> {
  const day = utcDay(now);
  const salt = await dailySalt(hot, now);
  const id = `${day}:${siteId}`;
  let entry = keys.get(id);
  if (!entry || entry.salt !== salt) {
    if (keys.size >= 10_000) keys.clear();
    entry = { salt, key: dayKeyOf(salt, siteId) };
    keys.set(id, entry);
  }
  return { day, dayKey: await entry.key };
}

/** A visitor's code today on a site. The address and user agent go in; only the code comes out. */
export async function visitorCodeOf(hot: HotStore, siteId: string, ip: string, ua: string, now = Date.now()): Promise<string> {
  return behaviourCode((await dayKeyFor(hot, siteId, now)).dayKey, ip, ua);
}
