import { behaviourCode, dayKeyOf } from '@us/protection';
import { dailySalt } from '../../collect/enrich/visitor.ts';
import type { Deps } from '../../deps.ts';

/**
 * Failed bot checks, per site and visitor, as behaviour memory (spec §2): a hot-store counter under the
 * visitor's one-way daily code (`behaviourCode` under the site's key of the day), never the address or
 * the user agent. The check page raises its difficulty with it; the gate reads it as an automation sign.
 *
 * The counter lives 24 hours from the first failure it counts (the hot store's counters have fixed
 * windows), so it is gone at most 24 hours after the visitor's last failed check; the code itself
 * changes with the day's salt, after which nobody can tie the counter to a visitor again.
 */
export const FAILED_CHECK_TTL_SECONDS = 86_400;

export const failedCheckKey = (siteId: string, code: string) => `bm-failed:${siteId}:${code}`;

/** The visitor's behaviour code today for a site (what the edges compute with the day's key). */
export async function visitorCodeOf(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<string> {
  return behaviourCode(await dayKeyOf(await dailySalt(deps.hot), siteId), ip, ua);
}

/** Counts one failed check (a wrong answer, or a browser saying it is automated); returns the day's count. */
export async function noteFailedCheck(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<number> {
  return deps.hot.incr(failedCheckKey(siteId, await visitorCodeOf(deps, siteId, ip, ua)), FAILED_CHECK_TTL_SECONDS);
}

/** Failed checks filed under a behaviour code in the last day (0 when none). */
export async function failedChecks(deps: Pick<Deps, 'hot'>, siteId: string, code: string): Promise<number> {
  const n = Number(await deps.hot.get(failedCheckKey(siteId, code)));
  return Number.isFinite(n) && n > 0 ? n : 0;
}
