import type { Orm } from '@us/db';
import { planOf } from '@us/shared';
import { LookupCache } from '../../core/cache/lookup-cache.ts';
import { monthOf, pausedAt } from './usage-counters.ts';

/** How long a node trusts a "not paused" answer for a workspace before asking PostgreSQL again. */
export const PAUSE_CACHE_MS = 60_000;
/**
 * How long it trusts a "paused" one: records of a paused workspace are dropped, so a workspace that starts paying
 * (any node's webhook) must be stored again within seconds, not after the minute a "not paused" answer lives.
 */
export const PAUSED_RECHECK_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** "Not paused" answers by `workspaceId|month`: an answer belongs to its month. */
const cache = new LookupCache<boolean>({
  ttlMs: PAUSE_CACHE_MS,
  refreshMs: 10_000,
  maxEntries: MAX_ENTRIES,
  now: Date.now,
  // The answer in hand stays in use until it expires; then a failing lookup reaches the caller.
  onRefreshError: () => {},
  keep: (paused) => !paused,
});
/** Until when each paused `workspaceId|month` is taken as paused without asking. */
const pausedUntil = new Map<string, number>();

/**
 * Whether the workspace's server-request logging is paused (Free at 150% of the month's allowance;
 * paid plans never). One small query per workspace and node at most every minute (every 5 s while paused), shared by the batches
 * that need it at the same time (`LookupCache`); a new month ends the pause at once (the cached answer
 * belongs to its month).
 */
export async function requestLoggingPaused(orm: Orm, workspaceId: string, now: Date = new Date()): Promise<boolean> {
  const month = monthOf(now);
  const key = `${workspaceId}|${month}`;
  if ((pausedUntil.get(key) ?? 0) > Date.now()) return true;
  const paused = await cache.get(key, async () => {
    const [row] = await orm.em.getConnection().execute<{ plan: string; requests: string | null }[]>(
      `select w.plan, u.requests::text as requests
           from workspaces w left join usage_months u on u.workspace_id = w.id and u.month = ?::date
          where w.id = ?`,
      [month, workspaceId],
      'all',
    );
    return row ? pausedAt(planOf(row.plan), Number(row.requests ?? 0)) : false;
  });
  if (paused) {
    if (pausedUntil.size >= MAX_ENTRIES) pausedUntil.clear();
    pausedUntil.set(key, Date.now() + PAUSED_RECHECK_MS);
  }
  return paused;
}
