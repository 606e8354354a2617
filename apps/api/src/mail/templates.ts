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
