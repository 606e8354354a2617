import type { Orm } from '@us/db';
import type { Logger } from '../logger.ts';
import { localToday } from '../services/stats/range.ts';
import { lastClosedPeriod, type Frequency } from '../services/reports/periods.ts';
import { type ReportDeps, sendReport } from '../services/reports/send.ts';
import { withJobLock } from './lock.ts';

interface DueRow {
  id: string;
  address: string;
  frequency: Frequency;
  last_period_start: string;
  site_id: string;
  name: string;
  timezone: string;
  workspace_id: string;
  settings: Record<string, unknown> | null;
}

/**
 * Sends every report whose next period has closed in its site's time zone (Monday for weekly, the 1st
 * for monthly), then records the period; a failed send leaves the report due for the next run and does
 * not hold the others up. Runs under the job's advisory lock, so across nodes one run sends; a period is
 * recorded right after its e-mail went, so running again never sends it twice.
 */
export async function runEmailReports(
  orm: Orm,
  deps: ReportDeps,
  opts: { logger?: Logger | undefined; siteIds?: string[] | undefined; now?: Date | undefined } = {},
): Promise<{ sent: number; failed: number }> {
  const now = opts.now ?? new Date();
  if (opts.siteIds?.length === 0) return { sent: 0, failed: 0 };
  const run = await withJobLock(orm, 'emailReports', async () => {
    const em = orm.em.fork();
    const rows = await em.execute<DueRow[]>(
      `select r.id, r.address, r.frequency, to_char(r.last_period_start, 'YYYY-MM-DD') as last_period_start,
              s.id as site_id, s.name, s.timezone, s.workspace_id, s.settings
         from email_reports r join sites s on s.id = r.site_id
        where ${opts.siteIds ? `s.id in (${opts.siteIds.map(() => '?').join(', ')})` : 'true'} order by r.created_at`,
      opts.siteIds ?? [],
    );
    let sent = 0;
    let failed = 0;
    for (const r of rows) {
      const period = lastClosedPeriod(r.frequency, localToday(r.timezone, now));
      if (period.from <= r.last_period_start) continue;
      try {
        const site = {
          id: r.site_id,
          name: r.name,
          timezone: r.timezone,
          workspaceId: r.workspace_id,
          settings: r.settings ?? {},
        };
        await sendReport(deps, { id: r.id, address: r.address, frequency: r.frequency, site }, period);
        await em.execute('update email_reports set last_period_start = ?, last_sent_at = ? where id = ?', [
          period.from,
          now,
          r.id,
        ]);
        sent++;
      } catch (e) {
        failed++;
        opts.logger?.error(`jobs: the ${r.frequency} report of site ${r.site_id} could not be sent; retried next hour`, e);
      }
    }
    return { sent, failed };
  });
  return run.ran ? run.result : { sent: 0, failed: 0 };
}
