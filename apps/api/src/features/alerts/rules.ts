// A site's alert rules (GET/POST /v1/sites/{id}/alerts, GET/PATCH/DELETE /v1/sites/{id}/alerts/{alert}):
// at most ALERT_LIMITS.perSite per site, counted under the site's lock. Addresses are asked to confirm
// like e-mail report addresses (the workspace's consent, features/reports/); a webhook's signing secret is
// made here, shown once, and kept sealed.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import {
  ALERT_LIMITS,
  type Alert,
  type AlertKind,
  type AlertParams,
  type AlertWindow,
  type CreateAlertInput,
  type UpdateAlertInput,
} from '@us/shared';
import { isUuid, loadSite, responsibleUserId, tokenOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { makerIsMember } from '../../actor/makers.ts';
import { checkStillEntitled } from '../../actor/still-entitled.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import { normaliseEmail } from '../../core/mail/address.ts';
import { suppressedOf } from '../../core/mail/suppression.ts';
import { outboundUrlProblem } from '../../core/security/outbound-url.ts';
import { randomToken } from '../../core/security/tokens.ts';
import { canManageOwners } from '../members/index.ts';
import { askToConfirm, type Confirmation, confirmationOf, recordAsk } from '../reports/index.ts';
import { checkSiteLimit } from '../sites/index.ts';
import { countedOf } from './figures.ts';
import type { RuleColumns } from './rule-columns.ts';

export type RuleDeps = Pick<Deps, 'env' | 'hot' | 'mailer' | 'urls' | 'ciphers' | 'logger'>;

interface AlertRow extends RuleColumns {
  enabled: boolean;
  created_at: Date;
  last_fired_at: Date | null;
  maker_is_member: boolean;
}

const COLUMNS = `id, kind, threshold_percent, goal, time_window, webhook_url, enabled, created_at, last_fired_at,
  ${makerIsMember('alerts')} as maker_is_member`;

export const NO_ALERT = () => new AppError(404, 'No such alert on this site: check the id with GET /v1/sites/{id}/alerts');

/** The rule's fields once a change is applied, checked together (each refusal names its field). */
interface RuleFields {
  kind: AlertKind;
  thresholdPercent: number | null;
  goal: string | null;
  window: AlertWindow;
  recipients: string[];
  webhookUrl: string | null;
}

/**
 * `goalGiven`: whether the request names the goal. Only then is it looked up on the site: a rule whose goal was
 * removed since stays silent, and must still be pausable or changeable.
 */
function checkRule(deps: RuleDeps, site: Site, r: RuleFields, goalGiven = true, destinationsGiven = true): RuleFields {
  const watchesFigures = r.kind !== 'first_pageview';
  if (watchesFigures && r.thresholdPercent === null) {
    throw badRequest('thresholdPercent', 'Give thresholdPercent, such as 50 for ±50% against the usual figure');
  }
  if ((r.kind === 'traffic_drop' || r.kind === 'goal_drop') && (r.thresholdPercent ?? 0) > ALERT_LIMITS.maxDropPercent) {
    throw badRequest(
      'thresholdPercent',
      `A drop is at most ${ALERT_LIMITS.maxDropPercent}%: give thresholdPercent of 100 or less`,
    );
  }
  if (r.kind === 'goal_drop') {
    if (!r.goal) throw badRequest('goal', 'Give the name of the goal to watch (GET /v1/sites/{id}/goals lists them)');
    if (goalGiven && !countedOf('goal_drop', r.goal, site.settings ?? {})) {
      throw badRequest('goal', `No goal named "${r.goal}" on this site: check the name with GET /v1/sites/{id}/goals`);
    }
  }
  // A change that names no destination may pause or tune a rule whose every address took itself off.
  if (destinationsGiven && r.recipients.length === 0 && r.webhookUrl === null) {
    throw badRequest('recipients', 'Give recipients, a webhookUrl or both: an alert that tells no one is not kept');
  }
  if (r.webhookUrl !== null) {
    const problem = outboundUrlProblem(r.webhookUrl, deps.env.ALERT_WEBHOOKS_TO_LOOPBACK);
    if (problem) throw badRequest('webhookUrl', problem);
  }
  return {
    ...r,
    thresholdPercent: watchesFigures ? r.thresholdPercent : null,
    goal: r.kind === 'goal_drop' ? r.goal : null,
  };
}

/** Refuses (409) addresses that asked this workspace for no more e-mail. */
async function refuseSuppressed(deps: RuleDeps, em: EntityManager, workspaceId: string, addresses: string[]) {
  const [suppressed] = await suppressedOf(em, deps.ciphers.mail, workspaceId, addresses);
  if (suppressed) {
    throw new AppError(409, `${suppressed} asked not to get e-mail from this workspace: alerts cannot be sent to it`, {
      field: 'recipients',
    });
  }
}

export async function alertsOf(em: EntityManager, siteId: string, alertId?: string): Promise<Alert[]> {
  const rows = await em.execute<AlertRow[]>(
    `select ${COLUMNS} from alerts where site_id = ? ${alertId ? 'and id = ?' : ''} order by created_at, id`,
    alertId ? [siteId, alertId] : [siteId],
  );
  if (rows.length === 0) return [];
  const recipients = await em.execute<{ alert_id: string; address: string; confirmation: Confirmation }[]>(
    `select ar.alert_id, ar.address, ${confirmationOf('ar')} as confirmation from alert_recipients ar
      where ar.alert_id in (${rows.map(() => '?').join(', ')}) and ar.unsubscribed_at is null order by ar.address`,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    thresholdPercent: r.threshold_percent,
    goal: r.goal,
    window: r.time_window,
    recipients: recipients.filter((x) => x.alert_id === r.id).map((x) => ({ address: x.address, confirmation: x.confirmation })),
    webhookUrl: r.webhook_url,
    enabled: r.enabled,
    creatorLeft: !r.maker_is_member,
    createdAt: new Date(r.created_at).toISOString(),
    lastFiredAt: r.last_fired_at ? new Date(r.last_fired_at).toISOString() : null,
  }));
}

export async function listAlerts(em: EntityManager, actor: Actor, siteId: string): Promise<{ alerts: Alert[] }> {
  const site = await loadSite(em, actor, siteId);
  return { alerts: await alertsOf(em, site.id) };
}

export async function getAlert(em: EntityManager, actor: Actor, input: AlertParams): Promise<{ alert: Alert }> {
  const site = await loadSite(em, actor, input.id);
  const [alert] = isUuid(input.alert) ? await alertsOf(em, site.id, input.alert) : [];
  if (!alert) throw NO_ALERT();
  return { alert };
}

const newSecret = () => `whsec_${randomToken(24)}`;

/**
 * Adds the addresses new to the rule (each asked to confirm once per workspace), removes those left out. An
 * address that unsubscribed from the rule stays off it: its marked row is neither removed nor added again.
 */
async function setRecipients(tx: EntityManager, alertId: string, workspaceId: string, addresses: string[]) {
  await tx.execute(
    `delete from alert_recipients where alert_id = ? and unsubscribed_at is null ${addresses.length ? `and address not in (${addresses.map(() => '?').join(', ')})` : ''}`,
    [alertId, ...addresses],
  );
  for (const address of addresses) {
    const added = await tx.execute<unknown[]>(
      'insert into alert_recipients (id, alert_id, workspace_id, address) values (?, ?, ?, ?) on conflict do nothing returning 1',
      [randomUUID(), alertId, workspaceId, address],
    );
    // Only an address new to the rule is asked: asked again for every address on any change of the rule, one that
    // had unsubscribed (or let its link expire) was mailed a confirmation again, by a change it never made.
    if (added.length) await recordAsk(tx, workspaceId, address);
  }
}

async function askAll(deps: RuleDeps, em: EntityManager, workspaceId: string, addresses: string[]) {
  for (const address of addresses) await askToConfirm(deps, em, workspaceId, address, deps.logger);
}

const uniqueAddresses = (given: readonly string[]) => [...new Set(given.map(normaliseEmail))];

export async function createAlert(
  deps: RuleDeps,
  em: EntityManager,
  actor: Actor,
  input: CreateAlertInput,
): Promise<{ alert: Alert; webhookSecret: string | null }> {
  const site = await loadSite(em, actor, input.id);
  const workspaceId = site.workspace.id;
  const rule = checkRule(deps, site, {
    kind: input.kind,
    thresholdPercent: input.thresholdPercent ?? null,
    goal: input.goal ?? null,
    window: input.window ?? 'day',
    recipients: uniqueAddresses(input.recipients ?? []),
    webhookUrl: input.webhookUrl ?? null,
  });
  await refuseSuppressed(deps, em, workspaceId, rule.recipients);
  const secret = rule.webhookUrl ? newSecret() : null;
  const id = randomUUID();
  await em.transactional(async (tx) => {
    await checkSiteLimit(
      tx,
      site.id,
      'alerts',
      ALERT_LIMITS.perSite,
      `A site has at most ${ALERT_LIMITS.perSite} alerts: remove one, then add this one`,
    );
    // The caller's token or membership ended meanwhile (a revocation deletes what it made): nothing is made.
    await checkStillEntitled(tx, actor, workspaceId, ['analytics:read', 'sites:write']);
    await tx.execute(
      `insert into alerts (id, site_id, workspace_id, kind, threshold_percent, goal, time_window, webhook_url, webhook_secret, enabled,
                           created_by, created_by_token)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        site.id,
        workspaceId,
        rule.kind,
        rule.thresholdPercent,
        rule.goal,
        rule.window,
        rule.webhookUrl,
        secret ? deps.ciphers.alerts.encrypt(secret) : null,
        input.enabled ?? true,
        responsibleUserId(actor),
        // A rule made with a token goes when the token is revoked (features/tokens/revocation.ts).
        tokenOf(actor),
      ],
    );
    await setRecipients(tx, id, workspaceId, rule.recipients);
  });
  await askAll(deps, em, workspaceId, rule.recipients);
  const [alert] = await alertsOf(em, site.id, id);
  return { alert: alert as Alert, webhookSecret: secret };
}

export async function updateAlert(
  deps: RuleDeps,
  em: EntityManager,
  actor: Actor,
  input: UpdateAlertInput,
): Promise<{ alert: Alert; webhookSecret: string | null }> {
  const site = await loadSite(em, actor, input.id);
  const workspaceId = site.workspace.id;
  const [was] = isUuid(input.alert) ? await alertsOf(em, site.id, input.alert) : [];
  if (!was) throw NO_ALERT();
  // A change makes the rule the changer's: of a rule whose maker left, that revives the maker's webhook and
  // addresses, an owner's decision (take-over.ts), as taking it over is.
  if (was.creatorLeft && !(await canManageOwners(em, actor))) {
    throw new AppError(
      409,
      'This rule’s maker left the workspace: an owner must take it over (or change it) before it sends anything again; you may delete it',
    );
  }
  const destinationsGiven = input.recipients !== undefined || input.webhookUrl !== undefined;
  const rule = checkRule(
    deps,
    site,
    {
      kind: was.kind,
      thresholdPercent: input.thresholdPercent ?? was.thresholdPercent,
      goal: input.goal ?? was.goal,
      window: input.window ?? was.window,
      recipients: input.recipients ? uniqueAddresses(input.recipients) : was.recipients.map((r) => r.address),
      webhookUrl: input.webhookUrl === undefined ? was.webhookUrl : input.webhookUrl,
    },
    // The kind never changes: only a goal the request names is looked up.
    input.goal !== undefined,
    destinationsGiven,
  );
  const added = rule.recipients.filter((a) => !was.recipients.some((r) => r.address === a));
  await refuseSuppressed(deps, em, workspaceId, added);
  // A new URL gets a new secret: whoever held the old one need not be trusted by the new receiver.
  const secret = rule.webhookUrl !== null && rule.webhookUrl !== was.webhookUrl ? newSecret() : null;
  const repointed =
    rule.webhookUrl !== was.webhookUrl || added.length > 0 || was.recipients.some((r) => !rule.recipients.includes(r.address));
  await em.transactional(async (tx) => {
    const updated = await tx.execute(
      `update alerts set threshold_percent = ?, goal = ?, time_window = ?, webhook_url = ?, enabled = ?,
              webhook_secret = case when ?::boolean then ? when ?::text is null then null else webhook_secret end,
              last_period = case when time_window = ? then last_period end,
              created_by = ?, created_by_token = case when ?::boolean then coalesce(?::uuid, created_by_token) else created_by_token end
        where id = ? and site_id = ? returning id`,
      [
        rule.thresholdPercent,
        rule.goal,
        rule.window,
        rule.webhookUrl,
        input.enabled ?? was.enabled,
        secret !== null,
        secret ? deps.ciphers.alerts.encrypt(secret) : null,
        rule.webhookUrl,
        rule.window,
        // The rule acts for whoever changed it last: their webhook or address, sent on after they left, kept
        // telling a removed member the site's figures (it stops with them, until an owner takes it over).
        responsibleUserId(actor),
        // Pointed elsewhere with a token (a webhook URL, recipients): the rule goes when that token is revoked. A
        // change that points it nowhere new (a pause, a threshold) leaves it tied to the token that chose where it goes.
        repointed,
        tokenOf(actor),
        was.id,
        site.id,
      ],
    );
    if (updated.length === 0) throw NO_ALERT();
    await setRecipients(tx, was.id, workspaceId, rule.recipients);
  });
  await askAll(deps, em, workspaceId, added);
  const [alert] = await alertsOf(em, site.id, was.id);
  return { alert: alert as Alert, webhookSecret: secret };
}

export async function deleteAlert(em: EntityManager, actor: Actor, input: AlertParams): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  const gone = isUuid(input.alert)
    ? await em.execute('delete from alerts where id = ? and site_id = ? returning id', [input.alert, site.id])
    : [];
  if (!gone.length) throw NO_ALERT();
}
