// Sending one report: its figures for a period and the e-mail; and "Send now" (dashboard-only
// `reports.sendNow`), the last closed period at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { makerIsMember } from '../../actor/makers.ts';
import { localToday } from '../../analytics/range.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, tooMany } from '../../core/errors.ts';
import { returnReportMail, spendReportMail } from '../../core/mail/budget.ts';
import { type Confirmation, confirmationOf } from './confirmation.ts';
import { type ReportFigures, type ReportSite, reportFigures } from './figures.ts';
import { type Frequency, lastClosedPeriod, type Period, periodName } from './periods.ts';
import { reportMail } from './report-mail.ts';
import { unsubscribeLink } from './unsubscribe.ts';

export type ReportDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm' | 'mailer' | 'urls' | 'ciphers'>;

export interface DueReport {
  id: string;
  address: string;
  frequency: Frequency;
  site: ReportSite;
}

/** The dashboard of the site for exactly `period` (the dashboard's custom range parameters). */
export const dashboardLink = (deps: Pick<Deps, 'urls'>, siteId: string, period: Period) =>
  `${deps.urls.app.replace(/\/$/, '')}/sites/${siteId}/dashboard?range=custom&from=${period.from}&to=${period.to}`;

/** Sends the report of `period` to its address (its figures computed unless given). */
export async function sendReport(deps: ReportDeps, report: DueReport, period: Period, figures?: ReportFigures): Promise<void> {
  await deps.mailer.send(
    reportMail({
      to: report.address,
      siteName: report.site.name,
      frequency: report.frequency,
      periodName: periodName(report.frequency, period),
      figures: figures ?? (await reportFigures(deps, report.site, period)),
      dashboardLink: dashboardLink(deps, report.site.id, period),
      unsubscribeLink: unsubscribeLink(deps, report.id),
    }),
  );
}

/** At most one "Send now" a minute per report. */
export const SEND_NOW_SECONDS = 60;

/**
 * "Send now": the last closed period's report to its address at once (its schedule and recorded period
 * do not change). Counted atomically in the hot store before sending (a fixed one-minute window per
 * report), and within the workspace's and the address's hourly mail budgets like every report. Only to an
 * address that confirmed, and not for a report whose maker left the workspace.
 */
export async function sendNow(deps: ReportDeps, em: EntityManager, actor: Actor, input: { id: string; reportId: string }) {
  const site = await loadSite(em, actor, input.id);
  const rows = isUuid(input.reportId)
    ? await em.execute<
        { id: string; address: string; frequency: Frequency; maker_is_member: boolean; confirmation: Confirmation }[]
      >(
        `select r.id, r.address, r.frequency, ${makerIsMember('r')} as maker_is_member, ${confirmationOf('r')} as confirmation
           from email_reports r where r.id = ? and r.site_id = ?`,
        [input.reportId, site.id],
      )
    : [];
  const found = rows[0];
  if (!found) throw new AppError(404, 'No such report on this site: reload the list');
  if (!found.maker_is_member) {
    throw new AppError(
      409,
      'This report stopped because the member who added it left the workspace: an owner can take it over, then send it',
    );
  }
  if (found.confirmation !== 'confirmed') {
    throw new AppError(
      409,
      found.confirmation === 'expired'
        ? `${found.address} has not confirmed it wants these reports, and its link expired: remove the report and add it again to ask once more`
        : `${found.address} has not confirmed it wants these reports yet: nothing is sent to it until it does`,
    );
  }
  const row = { id: found.id, address: found.address, frequency: found.frequency };
  const key = `report-now:${row.id}`;
  if ((await deps.hot.incr(key, SEND_NOW_SECONDS)) > 1) {
    const ttl = await deps.hot.ttl(key);
    const wait = ttl > 0 ? ttl : SEND_NOW_SECONDS;
    throw tooMany(wait, `This report was just sent: wait ${wait} seconds, then send it again`);
  }
  const over = await spendReportMail(deps.hot, 'report', site.workspace.id, row.address);
  if (over === 'address') throw tooMany(3600, `${row.address} has had its e-mails for this hour: try again in an hour`);
  if (over === 'workspace') {
    throw tooMany(3600, 'This workspace has sent its e-mail reports for this hour: try again in an hour');
  }
  const period = lastClosedPeriod(row.frequency, localToday(site.timezone));
  const reportSite = {
    id: site.id,
    name: site.name,
    timezone: site.timezone,
    workspaceId: site.workspace.id,
    settings: site.settings ?? {},
  };
  // Nothing went: the minute's Send now and the e-mail budgets are given back, so it can be sent again at once.
  const giveBack = async () => {
    await deps.hot.del(key).catch(() => undefined);
    await returnReportMail(deps.hot, 'report', site.workspace.id, row.address);
  };
  // The figures first: a question that fails answers as the stats do (503), before the mail server is asked.
  const figures = await reportFigures(deps, reportSite, period).catch(async (err: unknown) => {
    await giveBack();
    throw err;
  });
  try {
    await sendReport(deps, { ...row, site: reportSite }, period, figures);
  } catch (err) {
    await giveBack();
    throw mailRefusal(err, row.address);
  }
  return { sent: true as const, ...period };
}

/** A mail server's permanent refusal (SMTP 5xx, such as 550 "no such user"), as nodemailer reports it. */
export function rejectedForGood(e: unknown): boolean {
  const code = (e as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** What a Send now whose e-mail did not go answers: the mail server's refusal, or that it could not be reached. */
function mailRefusal(err: unknown, address: string): AppError {
  const { response } = (err ?? {}) as { response?: unknown };
  const said = typeof response === 'string' ? ` (${response.slice(0, 200)})` : '';
  // Refused for good (no such mailbox); otherwise for now (busy, greylisting, unreachable).
  if (rejectedForGood(err)) {
    return new AppError(409, `The mail server rejected ${address} for good${said}: check the address`);
  }
  return new AppError(
    503,
    `The report could not be sent: the mail server did not take it now${said}. Try again in a few minutes`,
    {
      retryAfter: 60,
    },
  );
}
