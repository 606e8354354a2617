// The site owner's side of e-mail reports (dashboard-only `reports.list`, `reports.add`, `reports.remove`).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type EmailReport, REPORTS_PER_SITE } from '@us/shared';
import { isUuid, loadSite, responsibleUserId, tokenOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { makerIsMember } from '../../actor/makers.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import { localToday } from '../../analytics/range.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { normaliseEmail } from '../../core/mail/address.ts';
import { isSuppressed } from '../../core/mail/suppression.ts';
import { checkSiteLimit } from '../sites/index.ts';
import { askToConfirm, type Confirmation, confirmationOf, recordAsk } from './confirmation.ts';
import { type Frequency, lastClosedPeriod } from './periods.ts';

export interface ReportRow {
  id: string;
  address: string;
  frequency: Frequency;
  created_at: Date;
  last_sent_at: Date | null;
  maker_is_member: boolean;
  confirmation: Confirmation;
}

export const REPORT_COLUMNS = `id, address, frequency, created_at, last_sent_at,
  ${makerIsMember('email_reports')} as maker_is_member, ${confirmationOf('email_reports')} as confirmation`;

export const toReport = (r: ReportRow): EmailReport => ({
  id: r.id,
  address: r.address,
  frequency: r.frequency,
  createdAt: new Date(r.created_at).toISOString(),
  lastSentAt: r.last_sent_at ? new Date(r.last_sent_at).toISOString() : null,
  creatorLeft: !r.maker_is_member,
  confirmation: r.confirmation,
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
 * the next full week or month. "Send now" shows what it will look like before then. An address new to
 * the workspace is sent one confirmation e-mail and gets nothing else until it confirms; an address that
 * asked the workspace for no more e-mail is refused.
 */
export async function addReport(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: { id: string; address: string; frequency: Frequency },
) {
  const site = await loadSite(em, actor, input.id);
  const workspaceId = site.workspace.id;
  const address = normaliseEmail(input.address);
  if (await isSuppressed(em, deps.ciphers.mail, workspaceId, address)) {
    throw new AppError(409, `${address} asked not to get e-mail from this workspace: reports cannot be sent to it`, {
      field: 'address',
    });
  }
  const start = lastClosedPeriod(input.frequency, localToday(site.timezone)).from;
  const added = await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'email_reports',
      REPORTS_PER_SITE,
      `A site sends at most ${REPORTS_PER_SITE} reports: remove one, then add this address`,
    );
    // The caller's token or membership ended meanwhile (a revocation deletes what it made): nothing is made.
    await checkStillEntitled(tx, actor, workspaceId, ['analytics:read', 'sites:write']);
    const rows = await tx.execute<{ id: string }[]>(
      `insert into email_reports (id, site_id, workspace_id, address, frequency, created_by, created_by_token, last_period_start)
         values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (site_id, address, frequency) do nothing returning id`,
      // A report added with a token goes when the token is revoked (features/tokens/revocation.ts).
      [randomUUID(), site.id, workspaceId, address, input.frequency, responsibleUserId(actor), tokenOf(actor), start],
    );
    if (rows[0]) await recordAsk(tx, workspaceId, address);
    return rows[0];
  });
  if (!added) throw new AppError(409, `${address} already gets the ${input.frequency} report of this site`);
  await askToConfirm(deps, em, workspaceId, address, deps.logger);
  const [row] = await em.execute<ReportRow[]>(`select ${REPORT_COLUMNS} from email_reports where id = ?`, [added.id]);
  return { report: toReport(row as ReportRow) };
}

export async function removeReport(em: EntityManager, actor: Actor, input: { id: string; reportId: string }) {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.reportId)
    ? await em.execute('delete from email_reports where id = ? and site_id = ? returning id', [input.reportId, site.id])
    : [];
  if (gone.length === 0) throw new AppError(404, 'No such report on this site: reload the list');
  return { removed: true as const };
}
