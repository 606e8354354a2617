// Double opt-in of report addresses: a new address of a workspace gets one confirmation e-mail (within the
// mail budgets) and no report until it says yes; saying no suppresses it for the workspace. Table
// `report_recipients`, one row per workspace and address (packages/db migration 20261209090000_report_optin).
// Alert addresses (features/alerts/, table `alert_recipients`) share it: the consent is to the workspace's
// mail, so an address confirmed for reports gets alerts too, and the other way round.
import type { EntityManager } from '@mikro-orm/postgresql';
import { makerIsMember } from '../../actor/makers.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { returnReportMail, spendReportMail } from '../../core/mail/budget.ts';
import { suppress } from '../../core/mail/suppression.ts';
import { randomToken, sha256 } from '../../core/security/tokens.ts';
import { emailLink } from '../auth/index.ts';
import { confirmationMail } from './confirm-mail.ts';
import type { Frequency } from './periods.ts';

/**
 * Whether the address of `alias` (a row with `workspace_id` and `address`) is still wanted by a report or
 * an alert of a current member of its workspace.
 */
const wantedBy = (alias: string, sites = '') => `(exists (select 1 from email_reports r
      where r.workspace_id = ${alias}.workspace_id and r.address = ${alias}.address and ${makerIsMember('r')} ${sites.replaceAll('$site', 'r.site_id')})
    or exists (select 1 from alert_recipients ar join alerts a on a.id = ar.alert_id
      where ar.workspace_id = ${alias}.workspace_id and ar.address = ${alias}.address and ar.unsubscribed_at is null
        and ${makerIsMember('a')} ${sites.replaceAll('$site', 'a.site_id')}))`;

/** How long a confirmation link works. */
export const CONFIRM_DAYS = 7;
/**
 * How long a claim to send a confirmation holds: past it, a claim whose e-mail never went out (its process
 * stopped) is taken again by the reports job.
 */
export const SENDING_MINUTES = 15;
/** An address waiting for its confirmation e-mail: never claimed, or claimed by a sender that stopped. */
const waitsForMail = (alias: string) => `(${alias}.mailed_at is null or ${alias}.sending_until < now())`;

export type ConfirmDeps = Pick<Deps, 'hot' | 'mailer' | 'urls' | 'ciphers'>;
export type Confirmation = 'confirmed' | 'waiting' | 'expired';

/** The confirmation state of the address of `alias` (a row of `email_reports`), for its select list. */
export const confirmationOf = (alias: string) => `coalesce((select case
    when rr.confirmed_at is not null then 'confirmed'
    when rr.expires_at <= now() then 'expired'
    else 'waiting' end
  from report_recipients rr where rr.workspace_id = ${alias}.workspace_id and rr.address = ${alias}.address), 'waiting')`;

/** The join that keeps only reports whose address confirmed, for `alias` (a row of `email_reports`). */
export const confirmedJoin = (alias: string) =>
  `join report_recipients rr on rr.workspace_id = ${alias}.workspace_id and rr.address = ${alias}.address and rr.confirmed_at is not null`;

/**
 * Called when a report to `address` is added (in its transaction): a new address is asked, and so is one
 * whose last confirmation link expired unanswered. A confirmed address, or one already asked, is left as
 * it is (one confirmation e-mail, not one per report). The time is the inserted row's (`asked_at`, default
 * now()): Citus takes only immutable functions in an upsert's DO UPDATE.
 */
export async function recordAsk(tx: EntityManager, workspaceId: string, address: string): Promise<void> {
  await tx.execute(
    `insert into report_recipients (workspace_id, address) values (?, ?)
       on conflict (workspace_id, address) do update set asked_at = excluded.asked_at, mailed_at = null, token_hash = null, expires_at = null, sending_until = null
       where report_recipients.confirmed_at is null and report_recipients.expires_at <= excluded.asked_at`,
    [workspaceId, address],
  );
}

/** The waiting confirmations one run of the reports job tries at most (the oldest asks first). */
const CONFIRMATIONS_PER_RUN = 1000;

/**
 * Sends the confirmation e-mail of an address that waits for one, while a report to it of a current
 * member exists. Claimed first (so two callers at once send one e-mail), then within the budgets: over them, or when the mail server refuses, the claim is
 * given back and the address waits for the next run of the reports job, which says so in the log. A claim
 * whose sender stopped before the e-mail went out lapses after SENDING_MINUTES, and a later run sends it.
 */
export async function askToConfirm(
  deps: ConfirmDeps,
  em: EntityManager,
  workspaceId: string,
  address: string,
  logger: Pick<Logger, 'warn' | 'error'> | undefined,
): Promise<'sent' | 'waiting' | 'workspace-spent' | 'nothing'> {
  const secret = randomToken(32);
  const tokenHash = sha256(secret);
  const claimed = await em.execute<unknown[]>(
    `update report_recipients rr set mailed_at = now(), token_hash = ?, expires_at = now() + interval '${CONFIRM_DAYS} days',
        sending_until = now() + interval '${SENDING_MINUTES} minutes'
      where workspace_id = ? and address = ? and confirmed_at is null and ${waitsForMail('rr')} and ${wantedBy('rr')}
      returning 1`,
    [tokenHash, workspaceId, address],
  );
  if (claimed.length === 0) return 'nothing';
  const giveBack = () =>
    em.execute(
      'update report_recipients set mailed_at = null, token_hash = null, expires_at = null, sending_until = null where workspace_id = ? and address = ? and token_hash = ?',
      [workspaceId, address, tokenHash],
    );
  const over = await spendReportMail(deps.hot, 'confirmation', workspaceId, address);
  if (over) {
    await giveBack();
    logger?.warn(
      `mail: a report confirmation of workspace ${workspaceId} is over the ${over === 'workspace' ? "workspace's" : "address's"} e-mail budget; it waits for the next run of the reports job`,
    );
    return over === 'workspace' ? 'workspace-spent' : 'waiting';
  }
  // The report (or else the alert) that asked first names the site and what is sent.
  const [first] = await em.execute<{ name: string; frequency: Frequency | null }[]>(
    `select name, frequency from (
       select s.name, r.frequency, r.created_at, r.id, 0 as rank from email_reports r join sites s on s.id = r.site_id
        where r.workspace_id = ? and r.address = ?
       union all
       select s.name, null, a.created_at, a.id, 1 from alert_recipients ar join alerts a on a.id = ar.alert_id
         join sites s on s.id = a.site_id where ar.workspace_id = ? and ar.address = ? and ar.unsubscribed_at is null) asked
      order by rank, created_at, id limit 1`,
    [workspaceId, address, workspaceId, address],
  );
  try {
    await deps.mailer.send(
      confirmationMail({
        to: address,
        siteName: first?.name ?? '',
        frequency: first && first.frequency === null ? 'alerts' : (first?.frequency ?? 'weekly'),
        link: emailLink(deps.urls.app, 'confirm-report', secret),
      }),
    );
  } catch (err) {
    await giveBack();
    await returnReportMail(deps.hot, 'confirmation', workspaceId, address);
    logger?.error(`mail: a report confirmation of workspace ${workspaceId} could not be sent; tried again at the next run`, err);
    return 'waiting';
  }
  // Sent: the claim is done. Should this not be written, the next run after the claim lapses mails a new link.
  await em.execute(
    'update report_recipients set sending_until = null where workspace_id = ? and address = ? and token_hash = ?',
    [workspaceId, address, tokenHash],
  );
  return 'sent';
}

/**
 * The reports job's part: confirmations that wait for their e-mail (over budget, refused by the mail
 * server, or claimed by a process that stopped) are sent, oldest ask first, at most `CONFIRMATIONS_PER_RUN`
 * a run. Once a workspace's budget is spent its other addresses wait for the next run untried (each was a
 * claim, a give-back and a log line: a thousand waiting addresses cost two thousand writes every hour). Asks
 * left with no report to confirm (removed meanwhile) are dropped.
 */
export async function sendWaitingConfirmations(
  em: EntityManager,
  deps: ConfirmDeps,
  opts: { siteIds?: string[] | undefined; logger?: Pick<Logger, 'warn' | 'error'> | undefined },
): Promise<{ sent: number; waiting: number }> {
  await em.execute(
    `delete from report_recipients rr where rr.confirmed_at is null
       and not exists (select 1 from email_reports r where r.workspace_id = rr.workspace_id and r.address = rr.address)
       and not exists (select 1 from alert_recipients ar
                        where ar.workspace_id = rr.workspace_id and ar.address = rr.address and ar.unsubscribed_at is null)`,
  );
  if (opts.siteIds?.length === 0) return { sent: 0, waiting: 0 };
  const sites = opts.siteIds ? `and $site in (${opts.siteIds.map(() => '?::uuid').join(', ')})` : '';
  const rows = await em.execute<{ workspace_id: string; address: string }[]>(
    `select rr.workspace_id, rr.address from report_recipients rr
      where rr.confirmed_at is null and ${waitsForMail('rr')} and ${wantedBy('rr', sites)}
      order by rr.asked_at
      limit ${CONFIRMATIONS_PER_RUN}`,
    opts.siteIds ? [...opts.siteIds, ...opts.siteIds] : [],
  );
  let sent = 0;
  let waiting = 0;
  const spent = new Set<string>();
  for (const row of rows) {
    const outcome = spent.has(row.workspace_id)
      ? 'workspace-spent'
      : await askToConfirm(deps, em, row.workspace_id, row.address, opts.logger);
    if (outcome === 'sent') sent++;
    if (outcome === 'waiting' || outcome === 'workspace-spent') waiting++;
    if (outcome === 'workspace-spent') spent.add(row.workspace_id);
  }
  return { sent, waiting };
}

const unusable = () =>
  new AppError(
    404,
    'This confirmation link is unknown, used or expired: nothing is sent to you; if you want the reports, ask whoever added you to add the address again',
  );

/**
 * The recipient's answer (public `reports.confirm`, from the e-mail's link, single use). Yes: the
 * workspace's reports to the address are sent from their next period. No: they are removed, and the
 * address is suppressed for the workspace (no report or invitation of it is sent to it again).
 */
export async function answerConfirmation(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  input: { token: string; answer: 'yes' | 'no' },
): Promise<{ address: string; answer: 'yes' | 'no'; sites: string[] }> {
  const tokenHash = sha256(input.token);
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<{ workspace_id: string; address: string }[]>(
      `select workspace_id, address from report_recipients
        where token_hash = ? and confirmed_at is null and expires_at > now() for update`,
      [tokenHash],
    );
    if (!row) throw unusable();
    const sites = await tx.execute<{ name: string }[]>(
      `select s.name from email_reports r join sites s on s.id = r.site_id where r.workspace_id = ? and r.address = ?
       union
       select s.name from alert_recipients ar join alerts a on a.id = ar.alert_id join sites s on s.id = a.site_id
        where ar.workspace_id = ? and ar.address = ? and ar.unsubscribed_at is null
       order by name`,
      [row.workspace_id, row.address, row.workspace_id, row.address],
    );
    if (input.answer === 'yes') {
      await tx.execute('update report_recipients set confirmed_at = now(), token_hash = null where token_hash = ?', [tokenHash]);
    } else {
      await tx.execute('delete from email_reports where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
      await tx.execute('delete from alert_recipients where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
      await tx.execute('delete from report_recipients where workspace_id = ? and address = ?', [row.workspace_id, row.address]);
      await suppress(tx, deps.ciphers.mail, row.workspace_id, row.address);
    }
    return { address: row.address, answer: input.answer, sites: sites.map((s) => s.name) };
  });
}
