import type { Deps } from '../../core/deps.ts';
import { visitorCodeOf as codeOf } from './visitor-code.ts';

/**
 * Failed bot checks, per site and visitor, as behaviour memory (spec §2; the sign `failed-check`): the
 * check page notes each failure and raises its difficulty with the count; the gate reads it as an
 * automation sign. Filed under the visitor's one-way daily code (never the address or user agent), and gone
 * 24 hours after the visitor's last failed check (the expiry slides with each failure).
 */
export const FAILED_CHECK_TTL_SECONDS = 86_400;

export const failedCheckKey = (siteId: string, code: string) => `bm-failed:${siteId}:${code}`;

/** The visitor's behaviour code today for a site (what the edges compute with the day's key). */
export function visitorCodeOf(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<string> {
  return codeOf(deps.hot, siteId, ip, ua);
}

/** Counts one failed check (a wrong answer, or a browser saying it is automated); returns the count so far. */
export async function noteFailedCheck(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<number> {
  const code = await visitorCodeOf(deps, siteId, ip, ua);
  const fields = await deps.hot.hupdate(failedCheckKey(siteId, code), { add: { n: 1 } }, FAILED_CHECK_TTL_SECONDS);
  return Number(fields.n ?? 0) || 0;
}

/** Failed checks filed under a behaviour code in the last day (0 when none). */
export async function failedChecks(deps: Pick<Deps, 'hot'>, siteId: string, code: string): Promise<number> {
  const fields = await deps.hot.hgetall(failedCheckKey(siteId, code));
  return Number(fields.n ?? 0) || 0;
}
