import type { Mail } from '../../core/mail/mailer.ts';
import type { Frequency } from './periods.ts';

/** The most of the site's name a confirmation mail shows (the site's name is the sender's only text in it). */
export const SITE_NAME_IN_MAIL = 80;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * One line (no control characters, line or paragraph separators, which could add headers or lines, nor bidi
 * overrides, which could reorder the text around it), at most `max` characters.
 */
export function bounded(name: string, max = SITE_NAME_IN_MAIL): string {
  const line = name.replace(/[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\s]+/gu, ' ').trim();
  const chars = [...line];
  return chars.length <= max
    ? line
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/**
 * The one e-mail a new report address gets before any report: it asks for consent. It carries nothing a
 * member typed but the site's name (bounded, escaped in the HTML): not the workspace's name, not who added
 * the address, no message, so the service cannot be used to mail strangers a text of someone's choosing.
 */
export function confirmationMail(opts: { to: string; siteName: string; frequency: Frequency | 'alerts'; link: string }): Mail {
  const site = bounded(opts.siteName);
  const what = opts.frequency === 'alerts' ? 'traffic alerts' : `${opts.frequency} visitor report`;
  const intro = `A member of the workspace that runs the site "${site}" on Unseen Stats asked to send its ${what} to this address.`;
  const ask = 'Nothing is sent to this address unless you confirm. Confirm, or ask never to be e-mailed by this workspace again';
  const outro = `The link works once and expires in 7 days. If you ignore this e-mail, you get no ${opts.frequency === 'alerts' ? 'alert' : 'report'}.`;
  return {
    to: opts.to,
    subject: `Confirm e-mail ${opts.frequency === 'alerts' ? 'alerts' : 'reports'} of ${site}`,
    text: `${intro}\n\n${ask}:\n${opts.link}\n\n${outro}\n`,
    html: `<p>${esc(intro)}</p><p>${esc(ask)}: <a href="${esc(opts.link)}">answer here</a></p><p style="color:#666">${esc(outro)}</p>`,
  };
}
