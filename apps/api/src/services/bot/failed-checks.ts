import type { Deps } from '../../deps.ts';
import { visitorCodeOf } from './visitor-code.ts';

/**
 * Failed checks per visitor (behaviour memory's sign `failed-check`): the check page notes each failure,
 * the gate reads the count. Filed under the visitor's daily code (no address, no user agent) and gone
 * 24 hours after the last failure.
 */
const TTL_SECONDS = 86_400;
const keyOf = (siteId: string, code: string) => `bm-failed:${siteId}:${code}`;

/** Notes that the visitor (address `ip`, user agent `ua`) failed the site's check. */
export async function noteFailedCheck(deps: Pick<Deps, 'hot'>, siteId: string, ip: string, ua: string): Promise<void> {
  const code = await visitorCodeOf(deps.hot, siteId, ip, ua);
  await deps.hot.hupdate(keyOf(siteId, code), { add: { n: 1 } }, TTL_SECONDS);
}

/** How many checks the visitor with this code failed in the last day (0 when none). */
export async function failedChecks(deps: Pick<Deps, 'hot'>, siteId: string, code: string): Promise<number> {
  const fields = await deps.hot.hgetall(keyOf(siteId, code));
  return Number(fields.n ?? 0) || 0;
}
