// The site owner's side of e-mail reports (dashboard-only `reports.list`, `reports.add`, `reports.remove`).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type EmailReport, REPORTS_PER_SITE } from '@us/shared';
import { isUuid, loadSite, responsibleUserId } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { makerIsMember } from '../../actor/makers.ts';
import { localToday } from '../../analytics/range.ts';
import { AppError } from '../../core/errors.ts';
import { normaliseEmail } from '../../core/mail/address.ts';
import { checkSiteLimit } from '../sites/index.ts';
import { type Frequency, lastClosedPeriod } from './periods.ts';

export interface ReportRow {
  id: string;
  address: string;
  frequency: Frequency;
  created_at: Date;
  last_sent_at: Date | null;
  maker_is_member: boolean;
}

export const REPORT_COLUMNS = `id, address, frequency, created_at, last_sent_at, ${makerIsMember('email_reports')} as maker_is_member`;

export const toReport = (r: ReportRow): EmailReport => ({
  id: r.id,
  address: r.address,
  frequency: r.frequency,
  createdAt: new Date(r.created_at).toISOString(),
  lastSentAt: r.last_sent_at ? new Date(r.last_sent_at).toISOString() : null,
  creatorLeft: !r.maker_is_member,
});

export async function listReports(em: EntityManager, actor: Actor, siteId: string) {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.execute<ReportRow[]>(
    `select ${REPORT_COLUMNS} from email_reports where site_id = ? order by created_at, id`,
    [site.id],
  );
  return { reports: rows.map(toReport) };
}

/**
 * A new report starts after the last period that had closed when it was set up: its first e-mail covers
 * the next full week or month. "Send now" shows what it will look like before then.
 */
export async function addReport(em: EntityManager, actor: Actor, input: { id: string; address: string; frequency: Frequency }) {
  const site = await loadSite(em, actor, input.id);
  const address = normaliseEmail(input.address);
  const start = lastClosedPeriod(input.frequency, localToday(site.timezone)).from;
  const row = await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'email_reports',
      REPORTS_PER_SITE,
      `A site sends at most ${REPORTS_PER_SITE} reports: remove one, then add this address`,
    );
    const rows = await tx.execute<ReportRow[]>(
      `insert into email_reports (id, site_id, workspace_id, address, frequency, created_by, last_period_start)
         values (?, ?, ?, ?, ?, ?, ?) on conflict (site_id, address, frequency) do nothing returning ${REPORT_COLUMNS}`,
      [randomUUID(), site.id, site.workspace.id, address, input.frequency, responsibleUserId(actor), start],
    );
    return rows[0];
  });
  if (!row) throw new AppError(409, `${address} already gets the ${input.frequency} report of this site`);
  return { report: toReport(row) };
}

export async function removeReport(em: EntityManager, actor: Actor, input: { id: string; reportId: string }) {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.reportId)
    ? await em.execute('delete from email_reports where id = ? and site_id = ? returning id', [input.reportId, site.id])
    : [];
  if (gone.length === 0) throw new AppError(404, 'No such report on this site: reload the list');
  return { removed: true as const };
}
