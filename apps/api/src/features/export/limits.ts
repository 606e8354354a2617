// Export budgets (spec §8): 5 per hour per site, 20 per hour per workspace, counted before they are
// checked (one atomic increment each), in fixed one-hour windows of the hot store.
import { EXPORT_LIMITS } from '@us/shared';
import { AppError } from '../../core/errors.ts';
import type { HotStore } from '../../core/hot/store.ts';

async function take(hot: HotStore, key: string, limit: number, what: string): Promise<void> {
  const used = await hot.incr(key, 3600);
  if (used <= limit) return;
  const left = await hot.ttl(key);
  throw new AppError(429, `${what} allows ${limit} exports an hour: try again in ${Math.max(1, Math.ceil(left / 60))} minutes`, {
    retryAfter: Math.max(1, left),
  });
}

/**
 * Spends one export of the site's hour and one of the workspace's. Refused by the workspace's, the site's is
 * given back: a workspace at its 20 otherwise spent its sites' hours on refusals. Answers how to give both back
 * (the export failed before it was made).
 */
export async function takeExportBudget(hot: HotStore, workspaceId: string, siteId: string): Promise<() => Promise<void>> {
  const site = `export:site:${siteId}`;
  const workspace = `export:ws:${workspaceId}`;
  await take(hot, site, EXPORT_LIMITS.perSitePerHour, 'One site');
  try {
    await take(hot, workspace, EXPORT_LIMITS.perWorkspacePerHour, 'One workspace');
  } catch (err) {
    await hot.decrBy(site, 1).catch(() => undefined);
    throw err;
  }
  return async () => {
    await Promise.all([hot.decrBy(site, 1), hot.decrBy(workspace, 1)]).catch(() => undefined);
  };
}

/**
 * How long one file's download may hold its slot (docs/product/export.md, "Downloads at once"). A test
 * gives the server shorter ones (`createServer`'s `downloadLimits`).
 */
export const DOWNLOAD_LIMITS = {
  /** A client that takes no bytes for this long while some wait for it (its socket not draining) is cut. */
  idleMs: 60_000,
  /** One file may take this long to send, whatever the reason (a slow statement, a slow reader); then it is cut. */
  fileMs: 15 * 60_000,
} as const;

export type DownloadLimits = { -readonly [K in keyof typeof DOWNLOAD_LIMITS]: number };
