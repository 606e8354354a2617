import type { Mail } from '../../core/mail/mailer.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Names typed by people go into a header: no line breaks or other control characters there. */
const oneLine = (s: string) => s.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();

const ROLE_WORDS: Record<string, string> = {
  admin: 'an admin',
  member: 'a member',
  viewer: 'a viewer',
};

/** The invitation e-mail: who invited whom into which workspace, and the single-use link (7 days). */
export function inviteMail(opts: {
  to: string;
  workspaceName: string;
  role: string;
  invitedBy: string | null;
  link: string;
}): Mail {
  const workspace = oneLine(opts.workspaceName);
  const role = ROLE_WORDS[opts.role] ?? opts.role;
  const who = opts.invitedBy ? `${opts.invitedBy} invited you` : 'You are invited';
  const intro = `${who} to join the workspace "${workspace}" on Unseen Stats as ${role}.`;
  const action = 'Accept the invitation';
  const outro =
    `Sign in (or sign up) with this address, ${opts.to}, then open the link: it works once and expires in 7 days. ` +
    'If you did not expect this invitation, ignore this e-mail.';
  return {
    to: opts.to,
    subject: `Join ${workspace} on Unseen Stats`,
    text: `${intro}\n\n${action}:\n${opts.link}\n\n${outro}\n`,
    html: `<p>${esc(intro)}</p><p><a href="${esc(opts.link)}">${esc(action)}</a></p>` + `<p style="color:#666">${esc(outro)}</p>`,
  };
}
