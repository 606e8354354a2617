import type { Mail } from './mailer.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function linkMail(to: string, subject: string, intro: string, action: string, link: string, outro: string): Mail {
  return {
    to,
    subject,
    text: `${intro}\n\n${action}:\n${link}\n\n${outro}\n`,
    html: `<p>${esc(intro)}</p><p><a href="${esc(link)}">${esc(action)}</a></p><p style="color:#666">${esc(outro)}</p>`,
  };
}

export const verificationMail = (to: string, link: string) =>
  linkMail(
    to,
    'Confirm your e-mail address',
    'Welcome to Unseen Stats. Confirm that this address is yours to finish signing up.',
    'Confirm your address',
    link,
    'The link works once and expires in 24 hours. If you did not sign up, ignore this e-mail.',
  );

export const alreadyRegisteredMail = (to: string, link: string) =>
  linkMail(
    to,
    'You already have an account',
    'Someone (hopefully you) tried to sign up with this address, which already has an account.',
    'Reset your password if you forgot it',
    link,
    'If it was not you, you can ignore this e-mail: nothing was changed.',
  );

export const resetMail = (to: string, link: string) =>
  linkMail(
    to,
    'Reset your password',
    'A password reset was requested for your account.',
    'Choose a new password',
    link,
    'The link works once and expires in one hour. Resetting signs out every session and revokes the API tokens you made. If you did not ask for this, ignore this e-mail.',
  );

/** What a Free allowance notice is about (spec §6, §8). */
export interface UsageNotice {
  workspaceName: string;
  allowance: 'pageviews' | 'requests';
  /** 80 or 100. */
  percent: number;
  used: number;
  limit: number;
  /** `YYYY-MM`, UTC. */
  month: string;
  /** Where the owner can see usage and change plan, when known. */
  link?: string;
}

const ALLOWANCE_NAMES = { pageviews: 'human pageviews', requests: 'server requests' } as const;

/** Free plan notice to a workspace owner at 80% or 100% of an allowance. */
export function usageNoticeMail(to: string, n: UsageNotice): Mail {
  const what = ALLOWANCE_NAMES[n.allowance];
  const fmt = (v: number) => v.toLocaleString('en-US');
  const subject =
    n.percent >= 100
      ? `${n.workspaceName} reached its Free ${what} allowance`
      : `${n.workspaceName} used ${n.percent}% of its Free ${what} allowance`;
  const intro = `Workspace "${n.workspaceName}" has recorded ${fmt(n.used)} of its ${fmt(n.limit)} ${what} for ${n.month} (${n.percent}% or more).`;
  const outro =
    n.allowance === 'requests'
      ? 'Free never bills. At 150% of the server-request allowance, server-request logging pauses until the month turns; pageviews keep counting.'
      : 'Free never bills and pageviews keep counting; upgrade for a larger allowance.';
  if (n.link) return linkMail(to, subject, intro, 'See usage and plans', n.link, outro);
  return {
    to,
    subject,
    text: `${intro}\n\n${outro}\n`,
    html: `<p>${esc(intro)}</p><p style="color:#666">${esc(outro)}</p>`,
  };
}
