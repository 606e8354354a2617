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

/** The recipient answers the confirmation mail's link as its page does (`yes` unless told otherwise). */
export async function answerConfirmation(t: TestServer, address: string, answer: 'yes' | 'no' = 'yes') {
  const token = linkToken(await confirmationTo(t, address), 'confirm-report');
  return callerFor(t.deps, { anonymous: true }).reports.confirm({ token, answer });
}
