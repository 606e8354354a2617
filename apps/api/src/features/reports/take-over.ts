// An owner takes an e-mail report over (dashboard-only `reports.takeOver`): typically one whose maker left
// the workspace, which then is sent again (actor/makers.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid, loadSite, responsibleUserId } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError, forbidden } from '../../core/errors.ts';
import { canManageOwners } from '../members/index.ts';
import { REPORT_COLUMNS, type ReportRow, toReport } from './recipients.ts';

/** Owners only: the report then sends the site's figures in their name. */
export async function takeOverReport(em: EntityManager, actor: Actor, input: { id: string; reportId: string }) {
  const site = await loadSite(em, actor, input.id);
  if (!(await canManageOwners(em, actor))) {
    throw forbidden('Only an owner can take over an e-mail report: ask an owner of this workspace');
  }
  const rows = isUuid(input.reportId)
    ? await em.execute<ReportRow[]>(
        `update email_reports set created_by = ?, created_by_token = null where id = ? and site_id = ? returning ${REPORT_COLUMNS}`,
        [responsibleUserId(actor), input.reportId, site.id],
      )
    : [];
  const row = rows[0];
  if (!row) throw new AppError(404, 'No such report on this site: reload the list');
  return { report: toReport(row) };
}
