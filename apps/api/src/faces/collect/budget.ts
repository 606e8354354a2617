import { MemoryStore } from '../../core/hot/memory.ts';
import type { HotStore } from '../../core/hot/store.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import type { Logger } from '../../core/logger.ts';
import { collectDropped } from '../../core/observe/metrics.ts';
import { budgetClient } from '../../core/security/client-info.ts';
import { countDrop, type DropReason } from '../../features/sites/dropped-reports.ts';

/**
 * Rate budgets of the collect path, per minute, counted first and atomically in the hot store (so every
 * node shares them). Past a budget a report is dropped silently (the sender still gets 202: a page has
 * nothing to do about it) and the drop is counted per site and day, shown to the owner in install-status.
 * The budgets keep one address or one flood from filling a tenant's allowance or the write path.
 */
export interface CollectLimits {
  /** Page reports one client address may send per minute, over every site. */
  reportsPerAddress: number;
  /** Page reports one site may receive per minute. */
  reportsPerSite: number;
  /** Edge SDK batches one site may send per minute (each holds up to 500 records). */
  batchesPerSite: number;
  /** Lookups of a secret this node does not know yet, per address and minute (then 429): guessing is slow. */
  secretLookupsPerAddress: number;
  /** Lookups of a site key this node does not know yet, per address and minute (then 429): a flood of made-up keys costs the database little. */
  keyLookupsPerAddress: number;
}

/** A client address as budget keys name it: its budget client (an IPv6 /64), tagged, never the address itself. */
export const addressKey = (hot: HotStore, ip: string) => hot.tag(budgetClient(ip));

export function collectBudgets(hot: HotStore, limits: CollectLimits, logger: Logger) {
  // A count that does not answer within 100 ms (or fails) lets the report through: it must not hold it up.
  const over = async (key: string, limit: number) => (await hotAnswer(hot, hot.incr(key, 60), 100, 0)) > limit;
  // The in-process store counts at once: a page report's two counts then cost no promise each.
  const counted = hot instanceof MemoryStore ? hot : null;

  function dropped(siteId: string, reason: DropReason) {
    collectDropped.inc({ reason });
    countDrop(hot, siteId, reason).catch((e) => {
      logger.debug(`collect: drop not counted (${String(e)})`);
    });
  }

  return {
    /** Whether a page report from this address to this site is within budget (counting it either way). */
    async admitReport(siteId: string, ip: string): Promise<boolean> {
      const addressCount = `collect:address:${addressKey(hot, ip)}`;
      const siteCount = `collect:site:${siteId}`;
      const [byAddress, bySite] = counted
        ? [counted.incrNow(addressCount, 60) > limits.reportsPerAddress, counted.incrNow(siteCount, 60) > limits.reportsPerSite]
        : await Promise.all([over(addressCount, limits.reportsPerAddress), over(siteCount, limits.reportsPerSite)]);
      if (byAddress || bySite) dropped(siteId, byAddress ? 'address' : 'site');
      return !byAddress && !bySite;
    },

    /** Whether an edge batch is within the site's budget. */
    async admitBatch(siteId: string): Promise<boolean> {
      const bySite = await over(`collect:batches:${siteId}`, limits.batchesPerSite);
      if (bySite) dropped(siteId, 'site');
      return !bySite;
    },

    /** Counts a lookup of an unknown secret from this address; false once the address is past its budget. */
    async mayLookUpSecret(ip: string): Promise<boolean> {
      return !(await over(`collect:secret-lookups:${addressKey(hot, ip)}`, limits.secretLookupsPerAddress));
    },

    /** Counts a lookup of an unknown site key from this address; false once the address is past its budget. */
    async mayLookUpKey(ip: string): Promise<boolean> {
      return !(await over(`collect:key-lookups:${addressKey(hot, ip)}`, limits.keyLookupsPerAddress));
    },
  };
}

export type CollectBudgets = ReturnType<typeof collectBudgets>;
