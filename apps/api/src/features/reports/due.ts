// The regular sending: every report whose next period has closed in its site's time zone goes out, then
// its period is recorded. Called by features/reports/reports-job.ts under the job's advisory lock.
import type { EntityManager } from '@mikro-orm/postgresql';
import { makerIsMember } from '../../actor/makers.ts';
import { localToday } from '../../analytics/range.ts';
import type { Logger } from '../../core/logger.ts';
import { spendReportMail } from '../../core/mail/budget.ts';
import { suppressedOf } from '../../core/mail/suppression.ts';
import { confirmedJoin, SENDING_MINUTES } from './confirmation.ts';
import { type ReportFigures, reportFigures } from './figures.ts';
import { type Frequency, lastClosedPeriod } from './periods.ts';
import { type DueReport, type ReportDeps, rejectedForGood, sendReport } from './send.ts';

interface ReportSiteRow {
  id: string;
  address: string;
  frequency: Frequency;
  /** YYYY-MM-DD, or null when no period was recorded yet. */
  last_period_start: string | null;
  site_id: string;
  name: string;
  timezone: string;
  workspace_id: string;
  settings: Record<string, unknown> | null;
}

const dueOf = (r: ReportSiteRow): DueReport => ({
  id: r.id,
  address: r.address,
  frequency: r.frequency,
  site: { id: r.site_id, name: r.name, timezone: r.timezone, workspaceId: r.workspace_id, settings: r.settings ?? {} },
});

/** Addresses on their workspace's suppression list among `rows`, as `workspace address` pairs. */
async function suppressedAmong(em: EntityManager, deps: ReportDeps, rows: ReportSiteRow[]): Promise<Set<string>> {
  const byWorkspace = new Map<string, string[]>();
  for (const r of rows) byWorkspace.set(r.workspace_id, [...(byWorkspace.get(r.workspace_id) ?? []), r.address]);
  const out = new Set<string>();
  for (const [workspaceId, addresses] of byWorkspace) {
    for (const a of await suppressedOf(em, deps.ciphers.mail, workspaceId, addresses)) out.add(`${workspaceId} ${a}`);
  }
  return out;
}

/**
 * Sends each report due at `now`: its period is claimed (a lease, `sending_until`) before the e-mail goes, so a run
 * at the same time does not send it too; `last_period_start` and `last_sent_at` are recorded once it went, so a later
 * run never sends that period again. A failed send (figures or mail) gives the claim back, leaving the report due
 * for the next run, and does not hold the others up; a run that stopped mid-send leaves a claim that lapses. Reports
 * of one site and period share their figures.
 * Only reports to addresses that confirmed are sent, never to one on the workspace's suppression list,
 * and not those whose maker left the workspace (actor/makers.ts) until an owner takes them over. Each
 * e-mail spends the workspace's and the address's budgets: one over them stays due for the next run
 * (`deferred`, logged).
 */
export async function sendDue(
  em: EntityManager,
  deps: ReportDeps,
  opts: { now: Date; siteIds?: string[] | undefined; logger?: Pick<Logger, 'error' | 'warn'> | undefined },
): Promise<{ sent: number; failed: number; deferred: number }> {
  if (opts.siteIds?.length === 0) return { sent: 0, failed: 0, deferred: 0 };
  const rows = await em.execute<ReportSiteRow[]>(
    `select r.id, r.address, r.frequency, to_char(r.last_period_start, 'YYYY-MM-DD') as last_period_start,
            s.id as site_id, s.name, s.timezone, s.workspace_id, s.settings
       from email_reports r join sites s on s.id = r.site_id ${confirmedJoin('r')}
      where ${opts.siteIds ? `s.id in (${opts.siteIds.map(() => '?::uuid').join(', ')})` : 'true'}
        and ${makerIsMember('r')}
      order by r.site_id, r.created_at`,
    opts.siteIds ?? [],
  );
  const suppressed = await suppressedAmong(em, deps, rows);
  const figures = new Map<string, Promise<ReportFigures>>();
  let sent = 0;
  let failed = 0;
  let deferred = 0;
  for (const row of rows) {
    let period: ReturnType<typeof lastClosedPeriod> | undefined;
    try {
      if (suppressed.has(`${row.workspace_id} ${row.address}`)) continue;
      period = lastClosedPeriod(row.frequency, localToday(row.timezone, opts.now));
      if (row.last_period_start !== null && period.from <= row.last_period_start) continue;
      const report = dueOf(row);
      const key = `${row.site_id}:${period.from}:${period.to}`;
      if (!figures.has(key)) figures.set(key, reportFigures(deps, report.site, period));
      // The figures first: a report whose figures cannot be read spends none of the address's budget, which it
      // shares with sign-up and password mail (a report failing every hour spent one of its five each hour).
      const read = await (figures.get(key) as Promise<ReportFigures>);
      // Claimed before its e-mail goes: a run at the same time (a node whose job lock went with its connection)
      // finds it taken. Given back when it does not go, so it stays due; a run that stopped before giving it back
      // (a deploy, a crash) leaves a claim that lapses, and a later run sends the report.
      const claim = await claimPeriod(em, row);
      if (!claim) continue;
      try {
        if (await spendReportMail(deps.hot, 'report', row.workspace_id, row.address)) {
          await claim.giveBack();
          deferred++;
          continue;
        }
        await sendReport(deps, report, period, read);
      } catch (e) {
        // A mailbox refused for good: its period is passed over (below). Anything else (the mail server, the hot
        // store gone) leaves the report due.
        if (!rejectedForGood(e)) await claim.giveBack().catch(() => undefined);
        throw e;
      }
      await em.execute('update email_reports set last_period_start = ?, last_sent_at = ?, sending_until = null where id = ?', [
        period.from,
        opts.now,
        row.id,
      ]);
      sent++;
    } catch (e) {
      failed++;
      if (period && rejectedForGood(e)) {
        // A mailbox that does not exist stays so: tried again each hour, it read the figures and spent the
        // address's budget forever. The period is passed over; the next one is tried once.
        await em.execute('update email_reports set last_period_start = ?, sending_until = null where id = ?', [
          period.from,
          row.id,
        ]);
        opts.logger?.warn(
          `jobs: the mail server rejected the ${row.frequency} report ${row.id} of site ${row.site_id} for good; its period is passed over`,
        );
      } else {
        opts.logger?.error(
          `jobs: the ${row.frequency} report ${row.id} of site ${row.site_id} was not sent; retried next hour`,
          e,
        );
      }
    }
  }
  if (deferred > 0) {
    opts.logger?.warn(
      `jobs: ${deferred} ${deferred === 1 ? 'report is' : 'reports are'} over the e-mail budget of their address or workspace this hour; they stay due and go at the next run`,
    );
  }
  return { sent, failed, deferred };
}

/**
 * Takes a report's next period for this run: a lease of SENDING_MINUTES, only while its `last_period_start` is as
 * this run read it and no other run's lease holds. Null when another run has it; else how to give it back. The
 * period itself is recorded once the e-mail went.
 */
async function claimPeriod(em: EntityManager, row: ReportSiteRow) {
  const [taken] = await em.execute<{ until: string }[]>(
    `update email_reports set sending_until = now() + interval '${SENDING_MINUTES} minutes'
      where id = ? and last_period_start is not distinct from ?::date and (sending_until is null or sending_until <= now())
      returning sending_until::text as until`,
    [row.id, row.last_period_start],
  );
  if (!taken) return null;
  return {
    giveBack: () =>
      em.execute('update email_reports set sending_until = null where id = ? and sending_until = ?::timestamptz', [
        row.id,
        taken.until,
      ]),
  };
}
