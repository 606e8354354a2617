// One run's look at each enabled alert rule: the period that closed last (once per period), its figures,
// and, when it fires, one delivery. The delivery row (unique per rule and period) is inserted before
// anything is sent, so two API nodes never both send one period; e-mails go first, within the workspace's
// daily alert budget; webhooks are handed back to the caller, which waits for them after every rule's
// e-mails, so a receiver that hangs holds up no e-mail and no other site.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { makerIsMember } from '../../actor/makers.ts';
import type { Logger } from '../../core/logger.ts';
import { deliver } from './delivery.ts';
import { fires } from './evaluate.ts';
import { type AlertFigures, type AlertSite, countedOf, pageviewsSince, periodFigures } from './figures.ts';
import { lastClosedPeriod } from './periods.ts';
import { type AlertDeps, type PendingHook, RULE_COLUMNS, type RuleRow } from './rule-columns.ts';

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
      figures: { current: await pageviewsSince(deps, site, new Date(rule.created_at)), baseline: null },
    };
  }
  const period = lastClosedPeriod(rule.time_window, rule.timezone, now);
  // Looked at already: the same key. A key before the last is looked at too: the site moved to a zone behind the
  // one that key was named in (its periods would otherwise pass over as looked at for up to a day). A period told
  // under both zones is told once: deliveries are unique per rule and key.
  if (period.key === rule.last_period) return null;
  const counted = countedOf(rule.kind, rule.goal, site.settings);
  // A goal removed from the site since: nothing to count; the period is passed over. So is the hour clocks repeat
  // (its figures are two hours'): no usual figure to hold them against.
  const figures =
    counted && period.once ? await periodFigures(deps, site, counted, rule.time_window, period) : { current: 0, baseline: null };
  return { period: period.key, figures };
}

/** Whether pageview or event rows have arrived for the site's UTC days from that of `since` on: one lookup of `day_arrivals`. */
async function rowsArrivedSince(deps: AlertDeps, siteId: string, since: Date): Promise<boolean> {
  const [row] = await deps.statsOrm.em
    .getConnection()
    .execute<{ any: boolean }[]>(
      `select exists (select 1 from day_arrivals where site_id = ?::uuid and day >= ?::date and rows > 0) as any`,
      [siteId, since.toISOString().slice(0, 10)],
      'all',
    );
  return row?.any === true;
}

/**
 * Looks at one rule: records the period as looked at, and when the rule fires, claims the period's delivery in
 * the same transaction (a stop between the two can no longer leave a period looked at and its delivery never
 * made), then sends its e-mails. Returns the webhook to send, if any.
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
  if (!fired) {
    // first_pageview stays unlooked-at until it fires: it waits for the first pageview.
    if (rule.kind !== 'first_pageview') await em.execute('update alerts set last_period = ? where id = ?', [period, rule.id]);
    return { fired: false, hook: null };
  }
  const deliveryId = randomUUID();
  const claimed = await em.transactional(async (tx) => {
    await tx.execute('update alerts set last_period = ? where id = ?', [period, rule.id]);
    const rows = await tx.execute<unknown[]>(
      `insert into alert_deliveries (id, alert_id, period, current, baseline, webhook) values (?, ?, ?, ?, ?, ?)
        on conflict (alert_id, period) do nothing returning id`,
      [deliveryId, rule.id, period, figures.current, figures.baseline, hasWebhook(rule) ? 'pending' : 'none'],
    );
    if (rows.length > 0) await tx.execute('update alerts set last_fired_at = ? where id = ?', [now, rule.id]);
    return rows.length > 0;
  });
  if (!claimed) return { fired: false, hook: null };
  return {
    fired: true,
    hook: await deliver(
      deps,
      em,
      rule,
      { id: deliveryId, period, figures, firedAt: now, mailsSent: false, webhookPending: hasWebhook(rule) },
      logger,
    ),
  };
}

const hasWebhook = (rule: RuleRow) => !!(rule.webhook_url && rule.webhook_secret);
