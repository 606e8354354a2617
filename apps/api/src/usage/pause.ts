import type { Orm } from '@us/db';
import { planOf } from '@us/shared';
import { monthOf, pausedAt } from './counters.ts';

/** How long a node trusts its answer for a workspace before asking PostgreSQL again. */
export const PAUSE_CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  paused: boolean;
  month: string;
  until: number;
}

const cache = new Map<string, Entry>();

/**
 * Whether the workspace's server-request logging is paused (Free at 150% of the month's allowance;
 * paid plans never). One small query per workspace and node at most every minute; a new month ends the
 * pause at once (the cached answer belongs to its month).
 */
export async function requestLoggingPaused(orm: Orm, workspaceId: string, now: Date = new Date()): Promise<boolean> {
  const month = monthOf(now);
  const hit = cache.get(workspaceId);
  if (hit && hit.month === month && hit.until > now.getTime()) return hit.paused;
  const [row] = await orm.em.getConnection().execute<{ plan: string; requests: string | null }[]>(
    `select w.plan, u.requests::text as requests
         from workspaces w left join usage_months u on u.workspace_id = w.id and u.month = ?::date
        where w.id = ?`,
    [month, workspaceId],
    'all',
  );
  const paused = row ? pausedAt(planOf(row.plan), Number(row.requests ?? 0)) : false;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(workspaceId, { paused, month, until: now.getTime() + PAUSE_CACHE_MS });
  return paused;
}

/** Forgets cached answers (tests, or after a plan change on this node). */
export function forgetPauseCache(workspaceId?: string): void {
  if (workspaceId) cache.delete(workspaceId);
  else cache.clear();
}
