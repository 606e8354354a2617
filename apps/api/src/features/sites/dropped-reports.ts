import { utcDay } from '@us/db';
import type { HotStore } from '../../core/hot/store.ts';

/**
 * Reports the collect budgets dropped, counted per site, day and reason in the hot store: the collect
 * face counts them (`countDrop`), the site's install status reads them back (`droppedReports`).
 */
export type DropReason = 'address' | 'site';
export const DROP_REASONS: DropReason[] = ['address', 'site'];
export const DROP_DAYS = 7;

export const dropKey = (siteId: string, day: string, reason: DropReason) => `collect:dropped:${siteId}:${day}:${reason}`;

/** Counts one dropped report; kept a day longer than the days shown. */
export function countDrop(hot: HotStore, siteId: string, reason: DropReason): Promise<unknown> {
  return hot.incr(dropKey(siteId, utcDay(Date.now()), reason), DROP_DAYS * 86_400 + 86_400);
}

/** Reports dropped by the budgets for a site: today and over the last seven days (UTC), by reason. */
export async function droppedReports(hot: HotStore, siteId: string, now = new Date()) {
  const days = Array.from({ length: DROP_DAYS }, (_, i) => utcDay(now.getTime() - i * 86_400_000));
  const byReason = { address: 0, site: 0 } as Record<DropReason, number>;
  let today = 0;
  await Promise.all(
    days.flatMap((day) =>
      DROP_REASONS.map(async (reason) => {
        const n = Number((await hot.get(dropKey(siteId, day, reason)).catch(() => null)) ?? 0);
        byReason[reason] += n;
        if (day === days[0]) today += n;
      }),
    ),
  );
  return { today, last7Days: byReason.address + byReason.site, byReason };
}
