import type { RequestRecord } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { noteNoReturn } from '../../features/protection/no-return.ts';

/** Distinct hostnames one batch may note at most: a batch of made-up hostnames costs a bounded number of writes. */
const HOSTNAMES_PER_BATCH = 50;

/**
 * Notes the batch's no-return challenges (challenges whose record names the `noReturnHost` a check could not
 * return to) for the site's setup problems, in the background: never holds the batch up, never fails it.
 */
export function noteNoReturnOfBatch(deps: Pick<Deps, 'hot'>, siteId: string, records: readonly RequestRecord[]): void {
  const hostnames = new Set<string>();
  for (const r of records) {
    if (r.action !== 'challenge' || !r.noReturnHost) continue;
    hostnames.add(r.noReturnHost.toLowerCase());
    if (hostnames.size >= HOSTNAMES_PER_BATCH) break;
  }
  if (hostnames.size > 0) void noteNoReturn(deps, siteId, hostnames);
}
