// The hourly billing job, once across nodes (advisory lock): samples each workspace's proxy-mode
// hostnames into the month's peak, ends the plans whose payment failed past the grace period
// (features/billing/grace.ts), closes the months that are over for workspaces that held a paid plan in
// them (features/billing/months.ts), sends their overage to the payment provider exactly once
// (features/billing/report.ts), and forgets webhook event ids older than 90 days (the provider
// redelivers for three days at most).
import type { Orm } from '@us/db';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { endLapsedSubscriptions } from './grace.ts';
import { closeOpenMonths } from './months.ts';
import type { BillingProvider } from './provider.ts';
import { reportOverages } from './report.ts';
import { sampleProxyPeaks } from './segments.ts';
import { monthOf } from './usage-counters.ts';

export interface BillingRun {
  ran: boolean;
  closed: number;
  reported: number;
  failed: number;
}

export async function runBilling(
  orm: Orm,
  provider: BillingProvider | null,
  opts: { now?: Date; wait?: boolean; logger?: Pick<Logger, 'warn'> } = {},
): Promise<BillingRun> {
  const now = opts.now ?? new Date();
  const res = await withJobLock(
    orm,
    'billing',
    async () => {
      const conn = orm.em.getConnection();
      await sampleProxyPeaks(conn, now);
      const lapsed = await endLapsedSubscriptions(conn, provider, now);
      // A month is billed if the workspace held a paid plan in any part of it: on one now, or a paid
      // segment closed by a plan change (cancelled, or ended after the grace period).
      const open = await conn.execute<{ id: string }[]>(
        `select distinct u.workspace_id::text as id from usage_months u join workspaces w on w.id = u.workspace_id
          where u.month < ?::date
            and not exists (select 1 from billing_months b where b.workspace_id = u.workspace_id and b.month = u.month)
            and (w.plan <> 'Free' or exists (select 1 from billing_segments s
                                              where s.workspace_id = u.workspace_id and s.month = u.month and s.plan <> 'Free'))`,
        [monthOf(now)],
        'all',
      );
      // One workspace's month that cannot be closed (logged) holds back neither the others' nor the overages.
      let closed = 0;
      for (const { id } of open) {
        try {
          await conn.transactional((t) => closeOpenMonths(conn, t, id, now));
          closed++;
        } catch (e) {
          opts.logger?.warn(`billing: the months of workspace ${id} could not be closed (tried again next hour): ${String(e)}`);
        }
      }
      await conn.execute(`delete from billing_events where received_at < now() - interval '90 days'`, [], 'run');
      const sent = provider ? await reportOverages(conn, provider) : { reported: 0, failed: 0 };
      return { closed, ...sent, cancelFailed: lapsed.failed };
    },
    { wait: opts.wait },
  );
  if (!res.ran) return { ran: false, closed: 0, reported: 0, failed: 0 };
  const { cancelFailed, ...result } = res.result;
  if (result.failed) opts.logger?.warn(`billing: ${result.failed} overage reports failed (tried again next hour)`);
  if (cancelFailed) {
    opts.logger?.warn(`billing: ${cancelFailed} subscriptions past their grace period not cancelled yet (tried again next hour)`);
  }
  return { ran: true, ...result };
}
