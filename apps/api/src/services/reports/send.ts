// Sending one report: its figures for a period, the e-mail, and (for the regular run) the record that
// the period was sent.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../actor/actor.ts';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Deps } from '../../deps.ts';
import { AppError, tooMany } from '../../errors.ts';
import { mayMail } from '../../mail/budget.ts';
import { reportMail } from '../../mail/report-mail.ts';
import { localToday } from '../stats/range.ts';
import { type ReportSite, reportFigures } from './figures.ts';
import { type Frequency, lastClosedPeriod, type Period, periodName } from './periods.ts';
import { unsubscribeLink } from './unsubscribe.ts';

export type ReportDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm' | 'mailer' | 'urls' | 'ciphers'>;

export interface DueReport {
  id: string;
  address: string;
  frequency: Frequency;
  site: ReportSite;
}

/** Builds and sends the report of `period` to its address. */
export async function sendReport(deps: ReportDeps, report: DueReport, period: Period): Promise<void> {
  const figures = await reportFigures(deps, report.site, period);
  const app = deps.urls.app.replace(/\/$/, '');
  await deps.mailer.send(
    reportMail({
      to: report.address,
      siteName: report.site.name,
      frequency: report.frequency,
      periodName: periodName(report.frequency, period),
      figures,
      dashboardLink: `${app}/sites/${report.site.id}/dashboard?range=custom&from=${period.from}&to=${period.to}`,
      unsubscribeLink: unsubscribeLink(deps, report.id),
    }),
  );
}

/** At most one "Send now" a minute per report. */
const SEND_NOW_SECONDS = 60;

/**
 * "Send now": the last closed period's report to its address at once (the regular schedule is not
 * changed). Spends the address's hourly mail budget like every e-mail to a typed address.
 */
export async function sendNow(deps: ReportDeps, em: EntityManager, actor: Actor, input: { id: string; reportId: string }) {
  const site = await loadSite(em, actor, input.id);
  const rows = isUuid(input.reportId)
    ? await em.execute<{ id: string; address: string; frequency: Frequency }[]>(
        'select id, address, frequency from email_reports where id = ? and site_id = ?',
        [input.reportId, site.id],
      )
    : [];
  const row = rows[0];
  if (!row) throw new AppError(404, 'No such report on this site: reload the list');
  const key = `report-now:${row.id}`;
  if ((await deps.hot.incr(key, SEND_NOW_SECONDS)) > 1) {
    const wait = Math.max(1, await deps.hot.ttl(key));
    throw tooMany(wait, `This report was just sent: wait ${wait} seconds, then send it again`);
  }
  if (!(await mayMail(deps.hot, row.address))) {
    throw tooMany(3600, `${row.address} has had its e-mails for this hour: try again in an hour`);
  }
  const period = lastClosedPeriod(row.frequency, localToday(site.timezone));
  await sendReport(
    deps,
    {
      ...row,
      site: {
        id: site.id,
        name: site.name,
        timezone: site.timezone,
        workspaceId: site.workspace.id,
        settings: site.settings ?? {},
      },
    },
    period,
  );
  return { sent: true as const, ...period };
}
