// The daily search pull (features/search/pull.ts), hourly on every node under one advisory lock, so a
// connection is pulled once across nodes; each connection's own `next_pull_at` makes it daily (sooner
// after a failure, with backoff).
import type { Orm } from '@us/db';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { type PullSetup, pullDue } from './pull.ts';

export async function runSearchPull(
  orm: Orm,
  setup: PullSetup,
  opts: { now?: Date; siteIds?: string[]; wait?: boolean; logger?: Pick<Logger, 'info' | 'warn' | 'error'> } = {},
): Promise<{ ran: boolean; pulled: number; failed: number; stopped: number }> {
  const res = await withJobLock(orm, 'searchPull', () => pullDue(orm.em.fork(), setup, opts.now ?? new Date(), opts.siteIds), {
    wait: opts.wait,
  });
  if (!res.ran) return { ran: false, pulled: 0, failed: 0, stopped: 0 };
  const { pulled, failed, stopped, unexpected } = res.result;
  if (failed) opts.logger?.warn(`search pull: ${failed} connections failed (shown on each)`);
  if (stopped) opts.logger?.info(`search pull: ${stopped} delegated connections stopped (access no longer holds; shown on each)`);
  for (const e of unexpected) opts.logger?.error('search pull: a connection failed unexpectedly', e);
  return { ran: true, pulled, failed, stopped };
}
