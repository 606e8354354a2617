import { callerFor } from './caller.ts';
import type { TestServer } from './server.ts';
import { type CapturedMail, linkToken } from './smtp.ts';

/** Subject of the one confirmation mail a new report address gets. */
export const CONFIRMATION_SUBJECT = /^Confirm e-mail reports of /;

/** The confirmation mail `address` got last (waits for it). */
export const confirmationTo = (t: TestServer, address: string): Promise<CapturedMail> =>
  t.smtp.waitFor(address, CONFIRMATION_SUBJECT);

/** Confirmation mails `address` got so far. */
export const confirmationsTo = (t: TestServer, address: string) =>
  t.smtp.mails.filter((m) => m.to.includes(address) && CONFIRMATION_SUBJECT.test(m.subject));

/** Subject of the confirmation mail of an address added to alerts first (features/alerts/). */
export const ALERT_CONFIRMATION_SUBJECT = /^Confirm e-mail alerts of /;

/**
 * The recipient answers the confirmation mail's link as its page does (`yes` unless told otherwise); `of`
 * says whether a report or an alert asked for the address first.
 */
export async function answerConfirmation(
  t: TestServer,
  address: string,
  answer: 'yes' | 'no' = 'yes',
  of: 'reports' | 'alerts' = 'reports',
) {
  const mail = await t.smtp.waitFor(address, of === 'alerts' ? ALERT_CONFIRMATION_SUBJECT : CONFIRMATION_SUBJECT);
  const token = linkToken(mail, 'confirm-report');
  return callerFor(t.deps, { anonymous: true }).reports.confirm({ token, answer });
}
