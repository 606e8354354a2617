import type { Orm } from '@us/db';
import { planOf } from '@us/shared';
import { LookupCache } from '../../core/cache/lookup-cache.ts';
import { monthOf, pausedAt } from './usage-counters.ts';

/** How long a node trusts its answer for a workspace before asking PostgreSQL again. */
export const PAUSE_CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** Answers by `workspaceId|month`: an answer belongs to its month. */
const cache = new LookupCache<boolean>({
  ttlMs: PAUSE_CACHE_MS,
  refreshMs: 10_000,
  maxEntries: MAX_ENTRIES,
  now: Date.now,
  // The answer in hand stays in use until it expires; then a failing lookup reaches the caller.
  onRefreshError: () => {},
});

/**
 * Whether the workspace's server-request logging is paused (Free at 150% of the month's allowance;
 * paid plans never). One small query per workspace and node at most every minute, shared by the batches
 * that need it at the same time (`LookupCache`); a new month ends the pause at once (the cached answer
 * belongs to its month).
 */
export async function requestLoggingPaused(orm: Orm, workspaceId: string, now: Date = new Date()): Promise<boolean> {
  const month = monthOf(now);
  return cache.get(`${workspaceId}|${month}`, async () => {
    const [row] = await orm.em.getConnection().execute<{ plan: string; requests: string | null }[]>(
      `select w.plan, u.requests::text as requests
           from workspaces w left join usage_months u on u.workspace_id = w.id and u.month = ?::date
          where w.id = ?`,
      [month, workspaceId],
      'all',
    );
    return row ? pausedAt(planOf(row.plan), Number(row.requests ?? 0)) : false;
  });
}
