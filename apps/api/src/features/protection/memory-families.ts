import type { Deps } from '../../core/deps.ts';
import type { BoundedFamily } from '../../core/hot/store.ts';

/**
 * Where behaviour memory lives in the hot store, and how it is bounded (docs/operations/limits.md). Each
 * kind of memory is a bounded family per site and UTC day (`HotStore.boundedUpdate`): a visitor's hash under
 * its daily code, indexed under the day (codes change at midnight UTC, so an index never outlives its day's
 * codes by more than the memory's own 24 hours), the lightest let go past the operator's bound. A family's keys
 * carry the site as their hash tag (`{<site>}`): one step names them together, which a Redis Cluster runs only
 * within one slot (core/hot/slots.ts), so each site's memory lives on one master.
 */

/** How many visitors memory keeps (the operator's settings). */
export type MemoryBounds = Pick<Deps['env'], 'BEHAVIOUR_VISITORS_PER_SITE' | 'BEHAVIOUR_VISITORS_PER_NODE'>;

export const memoryKey = (siteId: string, code: string) => `bm:{${siteId}}:${code}`;
export const flaggedKey = (siteId: string, day: string) => `bm-flagged:{${siteId}}:${day}`;
export const failedCheckKey = (siteId: string, code: string) => `bm-failed:{${siteId}}:${code}`;

/**
 * A site's visitors of one day: each weighed by `n` (requests and page reports seen), its entry in the day's
 * flagged list leaving with it.
 */
export const memoryFamily = (env: MemoryBounds, siteId: string, day: string): BoundedFamily => ({
  index: `bm-index:{${siteId}}:${day}`,
  prefix: memoryKey(siteId, ''),
  weight: 'n',
  cap: env.BEHAVIOUR_VISITORS_PER_SITE,
  nodeCap: env.BEHAVIOUR_VISITORS_PER_NODE,
  list: flaggedKey(siteId, day),
});

/** A site's visitors with failed checks of one day, weighed by their failures (`n`). */
export const failedFamily = (env: MemoryBounds, siteId: string, day: string): BoundedFamily => ({
  index: `bm-failed-index:{${siteId}}:${day}`,
  prefix: failedCheckKey(siteId, ''),
  weight: 'n',
  cap: env.BEHAVIOUR_VISITORS_PER_SITE,
  nodeCap: env.BEHAVIOUR_VISITORS_PER_NODE,
});
