import { AppError, tooMany } from '../errors.ts';
import type { HotStore } from '../hot/store.ts';
import { sha256 } from '../security/tokens.ts';
import { normaliseEmail } from './address.ts';

/**
 * How much mail strangers can make the service send. Every sender that e-mails an address someone typed
 * (sign-up for a taken address, confirmation, resend, reset, invitation, e-mail report and its
 * confirmation) spends the address's budget first; invitations and report mail also spend their
 * workspace's. A report confirmation asks a stranger for consent, so a workspace sends few of them; the
 * reports themselves go only to addresses that confirmed, so their budget is wide (it bounds what one
 * workspace can cost the service's sending reputation).
 */
export const MAIL_BUDGET = {
  perAddressPerHour: 5,
  invitationsPerWorkspacePerHour: 20,
  reportConfirmationsPerWorkspacePerHour: 20,
  reportConfirmationsPerWorkspacePerDay: 50,
  reportsPerWorkspacePerHour: 500,
  /** Alert e-mails (features/alerts/) a workspace sends in a day, over all its sites and rules. */
  alertsPerWorkspacePerDay: 200,
} as const;
const HOUR = 3600;
const DAY = 86_400;

// Only a hash of the address is kept: hot state never holds who was written to.
const addressKey = (to: string) => `mail-budget:${sha256(normaliseEmail(to))}`;
const workspaceKey = (workspaceId: string) => `invite-budget:${workspaceId}`;

/** Counts one first (atomic INCR, so senders at once each see the others); the wait when over `limit`. */
async function spend(hot: HotStore, key: string, limit: number, seconds = HOUR): Promise<number | null> {
  if ((await hot.incr(key, seconds)) <= limit) return null;
  return Math.max(1, await hot.ttl(key));
}

/** Takes back one count of `key` (never below 0): what was counted for mail that did not go. */
const giveBack = (hot: HotStore, key: string) => hot.decrBy(key, 1).catch(() => undefined);

/**
 * Spends one e-mail of the address's hourly budget; false when it is spent: then the e-mail is not sent,
 * and routes that answer the same for every address still do.
 */
export async function mayMail(hot: HotStore, to: string): Promise<boolean> {
  return (await spend(hot, addressKey(to), MAIL_BUDGET.perAddressPerHour)) === null;
}

/**
 * For mail a stranger sets off about someone else's account (sign-up help for a taken address): once a day per
 * address and `purpose`, outside the hourly budget, so such requests cannot use up the mail the person asks for
 * (a reset link, a new confirmation link).
 */
export async function mayMailOncePerDay(hot: HotStore, to: string, purpose: string): Promise<boolean> {
  return (await hot.incr(`mail-once:${purpose}:${sha256(normaliseEmail(to))}`, DAY)) === 1;
}

/** For senders that may say so (invitations): as `mayMail`, but a spent budget is 429 naming `field`. */
export async function requireMailBudget(hot: HotStore, to: string, field: string): Promise<void> {
  const wait = await spend(hot, addressKey(to), MAIL_BUDGET.perAddressPerHour);
  if (wait === null) return;
  throw new AppError(
    429,
    `${normaliseEmail(to)} has been sent ${MAIL_BUDGET.perAddressPerHour} e-mails by this service in the last hour, the most allowed: wait ${wait} seconds, then invite again`,
    { field, retryAfter: wait },
  );
}

/**
 * Gives back what an invitation that was not sent spent: the workspace's invitation, and `to`'s e-mail when it was
 * spent too (the mail server refused it, or the invitation was refused after its budgets were counted).
 */
export async function returnInvitation(hot: HotStore, workspaceId: string, to: string | null): Promise<void> {
  await giveBack(hot, workspaceKey(workspaceId));
  if (to !== null) await giveBack(hot, addressKey(to));
}

/** Spends one of the workspace's invitations for this hour; over the budget, 429. */
export async function requireInvitationBudget(hot: HotStore, workspaceId: string): Promise<void> {
  const wait = await spend(hot, workspaceKey(workspaceId), MAIL_BUDGET.invitationsPerWorkspacePerHour);
  if (wait === null) return;
  throw tooMany(
    wait,
    `This workspace has sent ${MAIL_BUDGET.invitationsPerWorkspacePerHour} invitations in the last hour, the most allowed: wait ${wait} seconds, then invite again`,
  );
}

/** The report mail a workspace sends: a confirmation to a new address, or a report or alert to a confirmed one. */
export type ReportMailKind = 'confirmation' | 'report' | 'alert';

const REPORT_WINDOWS: Record<ReportMailKind, { key: string; limit: number; seconds: number }[]> = {
  confirmation: [
    { key: 'report-confirm-hour', limit: MAIL_BUDGET.reportConfirmationsPerWorkspacePerHour, seconds: HOUR },
    { key: 'report-confirm-day', limit: MAIL_BUDGET.reportConfirmationsPerWorkspacePerDay, seconds: DAY },
  ],
  report: [{ key: 'report-mail-hour', limit: MAIL_BUDGET.reportsPerWorkspacePerHour, seconds: HOUR }],
  alert: [{ key: 'alert-mail-day', limit: MAIL_BUDGET.alertsPerWorkspacePerDay, seconds: DAY }],
};

/**
 * Spends one report e-mail of the workspace's budgets for `kind` (fixed windows), then one of the
 * address's hourly budget. Null when it may go; otherwise which budget is spent, and the workspace's windows that
 * counted it are given back. What is over budget is not sent now: the caller keeps it for a later run and says so
 * in the log.
 */
export async function spendReportMail(
  hot: HotStore,
  kind: ReportMailKind,
  workspaceId: string,
  to: string,
): Promise<'workspace' | 'address' | null> {
  const windows = REPORT_WINDOWS[kind];
  for (const [i, w] of windows.entries()) {
    if ((await spend(hot, `${w.key}:${workspaceId}`, w.limit, w.seconds)) !== null) {
      // The windows before this one counted an e-mail that is not sent now.
      for (const before of windows.slice(0, i)) await giveBack(hot, `${before.key}:${workspaceId}`);
      return 'workspace';
    }
  }
  if (await mayMail(hot, to)) return null;
  for (const w of windows) await giveBack(hot, `${w.key}:${workspaceId}`);
  return 'address';
}

/** Gives back what `spendReportMail` spent for an e-mail the mail server then refused: it is tried again later. */
export async function returnReportMail(hot: HotStore, kind: ReportMailKind, workspaceId: string, to: string): Promise<void> {
  for (const w of REPORT_WINDOWS[kind]) await giveBack(hot, `${w.key}:${workspaceId}`);
  await giveBack(hot, addressKey(to));
}
