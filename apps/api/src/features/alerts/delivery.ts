// A fired period's delivery, once claimed (check.ts): its e-mails to the rule's confirmed, not suppressed
// addresses within the workspace's daily alert budget, recorded as sent; its webhook handed back to the job,
// which sends them after every rule's e-mails. Deliveries a stopped run left unsent are taken up again at the
// next run's start.
import type { EntityManager } from '@mikro-orm/postgresql';
import { makerIsMember } from '../../actor/makers.ts';
import type { Deps } from '../../core/deps.ts';
import type { Logger } from '../../core/logger.ts';
import { spendReportMail } from '../../core/mail/budget.ts';
import { suppressedOf } from '../../core/mail/suppression.ts';
import { confirmedJoin } from '../reports/index.ts';
import { alertMail } from './alert-mail.ts';
import { changePercent } from './evaluate.ts';
import type { AlertFigures } from './figures.ts';
import { type AlertDeps, type PendingHook, RULE_COLUMNS, type RuleRow } from './rule-columns.ts';
import { alertUnsubscribeLink } from './unsubscribe.ts';

/** The dashboard of the period's day. */
const dashboardLink = (deps: Pick<Deps, 'urls'>, siteId: string, period: string) => {
  const base = `${deps.urls.app.replace(/\/$/, '')}/sites/${siteId}/dashboard`;
  return period === 'first' ? base : `${base}?range=custom&from=${period.slice(0, 10)}&to=${period.slice(0, 10)}`;
};

/** Sends the fired rule's e-mails to its confirmed, not suppressed addresses; how many went and were held. */
async function mailRecipients(
  deps: AlertDeps,
  em: EntityManager,
  rule: RuleRow,
  period: string,
  figures: AlertFigures,
  logger: Pick<Logger, 'error' | 'warn'> | undefined,
): Promise<{ mails: number; held: number; failed: number }> {
  const recipients = await em.execute<{ id: string; address: string }[]>(
    `select ar.id, ar.address from alert_recipients ar ${confirmedJoin('ar')}
      where ar.alert_id = ? and ar.unsubscribed_at is null order by ar.address`,
    [rule.id],
  );
  const suppressed = await suppressedOf(
    em,
    deps.ciphers.mail,
    rule.workspace_id,
    recipients.map((r) => r.address),
  );
  let mails = 0;
  let held = 0;
  let failed = 0;
  for (const r of recipients) {
    if (suppressed.has(r.address)) continue;
    if (await spendReportMail(deps.hot, 'alert', rule.workspace_id, r.address)) {
      held++;
      continue;
    }
    try {
      await deps.mailer.send(
        alertMail({
          to: r.address,
          siteName: rule.name,
          kind: rule.kind,
          goal: rule.goal,
          period,
          figures,
          changePercent: changePercent(figures),
          dashboardLink: dashboardLink(deps, rule.site_id, period),
          unsubscribeLink: alertUnsubscribeLink(deps, r.id),
        }),
      );
      mails++;
    } catch (e) {
      failed++;
      logger?.error(`jobs: an alert e-mail of rule ${rule.id} could not be sent`, e);
    }
  }
  if (held > 0) {
    logger?.warn(
      `jobs: ${held} e-mail(s) of alert ${rule.id} were held (the workspace's daily alert budget, or an address's hourly one)`,
    );
  }
  return { mails, held, failed };
}

/**
 * How long a delivery whose every e-mail the mail server refused is tried again (at each run, every 5 minutes):
 * a mail server down for a while loses no alert. Each try spends the addresses' hourly budget, which bounds them too.
 */
const MAIL_RETRY_MS = 6 * 3600_000;

/** A claimed delivery: what fired, and whether its e-mails went already. */
export interface Delivery {
  id: string;
  period: string;
  figures: AlertFigures;
  firedAt: Date;
  mailsSent: boolean;
  /** Its webhook is still to be sent (one already sent or failed is not sent again). */
  webhookPending: boolean;
}

/**
 * Sends a claimed delivery's e-mails unless they went already, recording them as sent, and answers its webhook
 * to send (null without one).
 */
export async function deliver(
  deps: AlertDeps,
  em: EntityManager,
  rule: RuleRow,
  d: Delivery,
  logger: Pick<Logger, 'error' | 'warn'> | undefined,
): Promise<PendingHook | null> {
  if (!d.mailsSent) {
    const { mails, held, failed } = await mailRecipients(deps, em, rule, d.period, d.figures, logger);
    // Nothing went and only the mail server stood in the way: left unsent, the next run tries again (none is sent twice).
    const again = failed > 0 && mails === 0 && held === 0 && Date.now() - d.firedAt.getTime() < MAIL_RETRY_MS;
    if (again) {
      logger?.warn(`jobs: the mail server refused every e-mail of alert ${rule.id}; tried again at the next run`);
    } else {
      await em.execute('update alert_deliveries set mails = ?, mails_held = ?, sent_at = now() where id = ?', [
        mails,
        held + failed,
        d.id,
      ]);
    }
  }
  if (!d.webhookPending || !rule.webhook_url || !rule.webhook_secret) return null;
  const body = JSON.stringify({
    alert: rule.kind,
    site: { id: rule.site_id, name: rule.name, timezone: rule.timezone },
    rule: { id: rule.id, thresholdPercent: rule.threshold_percent, goal: rule.goal, window: rule.time_window },
    period: d.period,
    current: d.figures.current,
    baseline: d.figures.baseline,
    changePercent: changePercent(d.figures),
    firedAt: d.firedAt.toISOString(),
  });
  return { deliveryId: d.id, url: rule.webhook_url, sealedSecret: rule.webhook_secret, body };
}

/** Deliveries taken up again per run at most. */
const UNFINISHED_PER_RUN = 200;

/**
 * Sends what earlier runs claimed and did not finish (the process stopped between the claim and the e-mails, or
 * before the webhook's answer): e-mails not recorded as sent, and webhooks still pending. Read at a run's start,
 * under the job's lock, so none is the current run's. An e-mail sent just before a stop, whose sending was not
 * recorded, goes again: a stop never loses an alert, and rarely tells it twice. A webhook whose rule has none
 * any more is recorded as failed. A rule paused since, or whose maker left, tells no one (as check.ts's rulesSql):
 * its deliveries are closed unsent.
 */
export async function resumeDeliveries(
  deps: AlertDeps,
  em: EntityManager,
  siteIds: string[] | undefined,
  logger: Pick<Logger, 'error' | 'warn'> | undefined,
): Promise<{ hooks: PendingHook[]; failed: number }> {
  const sites = siteIds ? `and a.site_id in (${siteIds.map(() => '?::uuid').join(', ')})` : '';
  // Closed as if sent (no e-mail, webhook failed): left open, they went out at the first run after a restart.
  const closed = await em.execute<unknown[]>(
    `update alert_deliveries d set sent_at = coalesce(d.sent_at, now()),
            webhook = case when d.webhook = 'pending' then 'failed' else d.webhook end
       from alerts a
      where a.id = d.alert_id and (d.sent_at is null or d.webhook = 'pending')
        and not (a.enabled and ${makerIsMember('a')}) ${sites}
      returning d.id`,
    siteIds ?? [],
  );
  if (closed.length > 0) {
    logger?.warn(`jobs: ${closed.length} unsent alert deliveries of paused rules (or rules whose maker left) closed unsent`);
  }
  const rows = await em.execute<
    (RuleRow & {
      delivery_id: string;
      d_period: string;
      current: number;
      baseline: number | null;
      fired_at: Date | string;
      mails_sent: boolean;
      webhook_pending: boolean;
    })[]
  >(
    `select ${RULE_COLUMNS}, d.id as delivery_id, d.period as d_period, d.current, d.baseline, d.fired_at,
            d.sent_at is not null as mails_sent, d.webhook = 'pending' as webhook_pending
       from alert_deliveries d join alerts a on a.id = d.alert_id join sites s on s.id = a.site_id
      where (d.sent_at is null or d.webhook = 'pending') and a.enabled and ${makerIsMember('a')} ${sites}
      order by d.fired_at, d.id limit ${UNFINISHED_PER_RUN}`,
    siteIds ?? [],
  );
  const hooks: PendingHook[] = [];
  let failed = 0;
  for (const r of rows) {
    const d: Delivery = {
      id: r.delivery_id,
      period: r.d_period,
      figures: { current: r.current, baseline: r.baseline },
      firedAt: new Date(r.fired_at),
      mailsSent: r.mails_sent,
      webhookPending: r.webhook_pending,
    };
    try {
      const hook = await deliver(deps, em, r, d, logger);
      if (hook) hooks.push(hook);
      else await em.execute(`update alert_deliveries set webhook = 'failed' where id = ? and webhook = 'pending'`, [d.id]);
    } catch (e) {
      failed++;
      logger?.error(`jobs: the unfinished delivery ${d.id} of alert ${r.id} could not be sent; tried again at the next run`, e);
    }
  }
  if (rows.length > 0) logger?.warn(`jobs: ${rows.length} alert deliveries a stopped run left unsent taken up again`);
  return { hooks, failed };
}
