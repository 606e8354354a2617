// The hourly e-mail reports (features/reports/due.ts) under one advisory lock, so across nodes one run
// sends each period once; first the confirmation e-mails that wait for one (features/reports/confirmation.ts).
import type { Orm } from '@us/db';
import { type JobRunOptions, withJobLock } from '../../core/job-lock.ts';
import { sendWaitingConfirmations } from './confirmation.ts';
import { sendDue } from './due.ts';
import type { ReportDeps } from './send.ts';

export async function runEmailReports(
  orm: Orm,
  deps: ReportDeps,
  opts: JobRunOptions = {},
): Promise<{ ran: boolean; sent: number; failed: number; deferred: number }> {
  const now = opts.now ?? new Date();
  const run = await withJobLock(
    orm,
    'emailReports',
    async () => {
      const em = orm.em.fork();
      await sendWaitingConfirmations(em, deps, opts);
      return sendDue(em, deps, { ...opts, now });
    },
    { wait: opts.wait },
  );
  return run.ran ? { ran: true, ...run.result } : { ran: false, sent: 0, failed: 0, deferred: 0 };
}
