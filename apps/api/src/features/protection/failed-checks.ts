import { utcDay } from '@us/db';
import type { Deps } from '../../core/deps.ts';
import { failedCheckKey, failedFamily, type MemoryBounds } from './memory-families.ts';
import { visitorCodeOf as codeOf } from './visitor-code.ts';

/**
 * Failed bot checks, per site and visitor, as behaviour memory (spec §2; the sign `failed-check`): the
 * check page notes each failure and raises its difficulty with the count; the gate reads it as an
 * automation sign. Filed under the visitor's one-way daily code (never the address or user agent), and gone
 * 24 hours after the visitor's last failed check (the expiry slides with each failure). Bounded as the rest
 * of memory: at most `BEHAVIOUR_VISITORS_PER_SITE` visitors a day per site, those with the most failures.
 */
export const FAILED_CHECK_TTL_SECONDS = 86_400;

export { failedCheckKey };

/** The visitor's behaviour code today for a site (what the edges compute with the day's key). */
export function visitorCodeOf(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<string> {
  return codeOf(deps.hot, siteId, ip, ua);
}

/**
 * Counts one failed check (a wrong answer, or a browser saying it is automated); returns the count so far
 * (1 when the site's memory is full of visitors with more failures and this one is not remembered).
 */
export async function noteFailedCheck(
  deps: Pick<Deps, 'hot'> & { env: MemoryBounds },
  siteId: string,
  ip: string,
  ua: string,
  now = Date.now(),
): Promise<number> {
  const code = await codeOf(deps.hot, siteId, ip, ua, now);
  const family = failedFamily(deps.env, siteId, utcDay(now));
  const fields = await deps.hot.boundedUpdate(family, code, { add: { n: 1 } }, FAILED_CHECK_TTL_SECONDS);
  return Number(fields?.n ?? 1) || 1;
}

/** Failed checks filed under a behaviour code in the last day (0 when none). */
export async function failedChecks(deps: Pick<Deps, 'hot'>, siteId: string, code: string): Promise<number> {
  const fields = await deps.hot.hgetall(failedCheckKey(siteId, code));
  return Number(fields.n ?? 0) || 0;
}
