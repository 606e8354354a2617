// The hourly billing job, once across nodes (advisory lock): samples each workspace's proxy-mode
// hostnames into the month's peak, closes the months that are over for workspaces on a paid plan
// (features/billing/months.ts), sends their overage to the payment provider exactly once
// (features/billing/report.ts), and forgets webhook event ids older than 90 days (the provider
// redelivers for three days at most).
import type { Orm } from '@us/db';
import { withJobLock } from '../../core/job-lock.ts';
import type { Logger } from '../../core/logger.ts';
import { closeOpenMonths, sampleProxyPeaks } from './months.ts';
import type { BillingProvider } from './provider.ts';
import { reportOverages } from './report.ts';
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
      const open = await conn.execute<{ id: string }[]>(
        `select distinct u.workspace_id::text as id from usage_months u join workspaces w on w.id = u.workspace_id
          where w.plan <> 'Free' and u.month < ?::date
            and not exists (select 1 from billing_months b where b.workspace_id = u.workspace_id and b.month = u.month)`,
        [monthOf(now)],
        'all',
      );
      for (const { id } of open) await conn.transactional((t) => closeOpenMonths(conn, t, id, now));
      await conn.execute(`delete from billing_events where received_at < now() - interval '90 days'`, [], 'run');
      const sent = provider ? await reportOverages(conn, provider) : { reported: 0, failed: 0 };
      return { closed: open.length, ...sent };
    },
    { wait: opts.wait },
  );
  if (!res.ran) return { ran: false, closed: 0, reported: 0, failed: 0 };
  if (res.result.failed) opts.logger?.warn(`billing: ${res.result.failed} overage reports failed (tried again next hour)`);
  return { ran: true, ...res.result };
}
