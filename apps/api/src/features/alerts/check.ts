// One run's look at each enabled alert rule: the period that closed last (once per period), its figures,
// and, when it fires, one delivery. The delivery row (unique per rule and period) is inserted before
// anything is sent, so two API nodes never both send one period; e-mails go first, within the workspace's
// daily alert budget; webhooks are handed back to the caller, which waits for them after every rule's
// e-mails, so a receiver that hangs holds up no e-mail and no other site.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { makerIsMember } from '../../actor/makers.ts';
import type { Deps } from '../../core/deps.ts';
import type { Logger } from '../../core/logger.ts';
import { spendReportMail } from '../../core/mail/budget.ts';
import { suppressedOf } from '../../core/mail/suppression.ts';
import { confirmedJoin } from '../reports/index.ts';
import { alertMail } from './alert-mail.ts';
import { changePercent, fires } from './evaluate.ts';
import { type AlertFigures, type AlertSite, countedOf, pageviewsSince, periodFigures } from './figures.ts';
import { lastClosedPeriod } from './periods.ts';
import type { RuleColumns } from './rule-columns.ts';
import { alertUnsubscribeLink } from './unsubscribe.ts';

export type AlertDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm' | 'mailer' | 'urls' | 'ciphers' | 'sleep'>;

export interface RuleRow extends RuleColumns {
  webhook_secret: string | null;
  /** As the driver gives it (text of a timestamptz). */
  created_at: Date | string;
  last_period: string | null;
  site_id: string;
  name: string;
  timezone: string;
  workspace_id: string;
  settings: Record<string, unknown> | null;
}

/** What a fired rule's webhook is to say, sent after every e-mail of the run. */
export interface PendingHook {
  deliveryId: string;
  url: string;
  sealedSecret: string;
  body: string;
}

export const RULE_COLUMNS = `a.id, a.kind, a.threshold_percent, a.goal, a.time_window, a.webhook_url, a.webhook_secret,
  a.created_at, a.last_period, s.id as site_id, s.name, s.timezone, s.workspace_id, s.settings`;

/** Rules to look at: enabled, made by a current member (actor/makers.ts), of the given sites. */
export const rulesSql = (siteIds: string[] | undefined) =>
  `select ${RULE_COLUMNS} from alerts a join sites s on s.id = a.site_id
    where a.enabled and ${makerIsMember('a')}
      ${siteIds ? `and s.id in (${siteIds.map(() => '?::uuid').join(', ')})` : ''}
    order by a.site_id, a.created_at, a.id`;

const siteOf = (r: RuleRow): AlertSite => ({
  id: r.site_id,
  name: r.name,
  timezone: r.timezone,
  workspaceId: r.workspace_id,
  settings: r.settings ?? {},
});

/** The period to look at and its figures; null when that period was looked at already or cannot be. */
async function figuresOf(deps: AlertDeps, rule: RuleRow, now: Date): Promise<{ period: string; figures: AlertFigures } | null> {
  const site = siteOf(rule);
  if (rule.kind === 'first_pageview') {
    if (rule.last_period === 'first') return null;
    // Until the site has rows of the rule's days, no question is asked: a rule waiting on a site without traffic
    // cost a stats question every five minutes, forever (20 a site, on every site of a workspace).
    if (!(await rowsArrivedSince(deps, site.id, new Date(rule.created_at)))) return null;
    return {
      period: 'first',
      figures: { current: await pageviewsSince(deps, site, new Date(rule.created_at), now), baseline: null },
    };
  }
  const period = lastClosedPeriod(rule.time_window, rule.timezone, now);
  if (rule.last_period !== null && period.key <= rule.last_period) return null;
  const counted = countedOf(rule.kind, rule.goal, site.settings);
  // A goal removed from the site since: nothing to count; the period is passed over.
  const figures = counted ? await periodFigures(deps, site, counted, rule.time_window, period) : { current: 0, baseline: null };
  return { period: period.key, figures };
}

/**
 * Whether pageview or event rows have arrived for the site's UTC days from the day before `since` on (the count
 * reads from the local day of `since`, which starts at most a day earlier): one lookup of `day_arrivals`.
 */
async function rowsArrivedSince(deps: AlertDeps, siteId: string, since: Date): Promise<boolean> {
  const [row] = await deps.statsOrm.em
    .getConnection()
    .execute<{ any: boolean }[]>(
      `select exists (select 1 from day_arrivals where site_id = ?::uuid and day >= ?::date - 1 and rows > 0) as any`,
      [siteId, since.toISOString().slice(0, 10)],
      'all',
    );
  return row?.any === true;
}

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
): Promise<{ mails: number; held: number }> {
  const recipients = await em.execute<{ id: string; address: string }[]>(
    `select ar.id, ar.address from alert_recipients ar ${confirmedJoin('ar')} where ar.alert_id = ? order by ar.address`,
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
      held++;
      logger?.error(`jobs: an alert e-mail of rule ${rule.id} could not be sent`, e);
    }
  }
  if (held > 0) {
    logger?.warn(
      `jobs: ${held} e-mail(s) of alert ${rule.id} were not sent (the workspace's daily alert budget, an address's hourly one, or the mail server)`,
    );
  }
  return { mails, held };
}

/**
 * Looks at one rule: records the period as looked at, and when the rule fires, claims the period's
 * delivery and sends its e-mails. Returns the webhook to send, if any.
 */
export async function checkRule(
  deps: AlertDeps,
  em: EntityManager,
  rule: RuleRow,
  now: Date,
  logger: Pick<Logger, 'error' | 'warn'> | undefined,
): Promise<{ fired: boolean; hook: PendingHook | null }> {
  const looked = await figuresOf(deps, rule, now);
  if (!looked) return { fired: false, hook: null };
  const { period, figures } = looked;
  const fired = fires(rule.kind, rule.threshold_percent, figures);
  // first_pageview stays unlooked-at until it fires: it waits for the first pageview.
  if (rule.kind !== 'first_pageview' || fired) {
    await em.execute('update alerts set last_period = ? where id = ?', [period, rule.id]);
  }
  if (!fired) return { fired: false, hook: null };
  const deliveryId = randomUUID();
  const claimed = await em.execute<unknown[]>(
    `insert into alert_deliveries (id, alert_id, period, current, baseline) values (?, ?, ?, ?, ?)
      on conflict (alert_id, period) do nothing returning id`,
    [deliveryId, rule.id, period, figures.current, figures.baseline],
  );
  if (claimed.length === 0) return { fired: false, hook: null };
  await em.execute('update alerts set last_fired_at = ? where id = ?', [now, rule.id]);
  const { mails, held } = await mailRecipients(deps, em, rule, period, figures, logger);
  await em.execute('update alert_deliveries set mails = ?, mails_held = ? where id = ?', [mails, held, deliveryId]);
  if (!rule.webhook_url || !rule.webhook_secret) return { fired: true, hook: null };
  const body = JSON.stringify({
    alert: rule.kind,
    site: { id: rule.site_id, name: rule.name, timezone: rule.timezone },
    rule: { id: rule.id, thresholdPercent: rule.threshold_percent, goal: rule.goal, window: rule.time_window },
    period,
    current: figures.current,
    baseline: figures.baseline,
    changePercent: changePercent(figures),
    firedAt: now.toISOString(),
  });
  return { fired: true, hook: { deliveryId, url: rule.webhook_url, sealedSecret: rule.webhook_secret, body } };
}
