import type { EmailReport } from '@us/shared';

/** What the E-mail reports card says of a report: whether it is sent, and if not, why. */
export function reportStatus(r: Pick<EmailReport, 'creatorLeft' | 'confirmation'>): { text: string; sending: boolean } {
  if (r.creatorLeft) return { text: 'Stopped: added by a member who left', sending: false };
  if (r.confirmation === 'waiting') return { text: 'Waiting for confirmation', sending: false };
  if (r.confirmation === 'expired') return { text: 'Not confirmed: the link expired', sending: false };
  return { text: 'Confirmed', sending: true };
}
