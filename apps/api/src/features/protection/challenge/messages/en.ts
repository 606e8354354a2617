import type { Messages } from './types.ts';

export const en: Messages = {
  title: 'Checking your browser',
  intro: (host) =>
    `Before you continue to ${host}, your browser solves a short puzzle. This keeps automated traffic away from the site. It takes a few seconds and needs nothing from you.`,
  privacy: (host) =>
    `This page sets no cookies. When the check passes, ${host} sets one cookie that lets this browser through for a day.`,
  starting: 'The check starts by itself.',
  working: 'Working… %s %',
  progressLabel: 'Progress of the check',
  statusLabel: 'State of the check',
  done: 'Done. Taking you to the page…',
  stillWorking: 'Still working: one moment, please.',
  continue: 'Continue',
  noscript:
    'This check needs JavaScript. Turn JavaScript on for this page and load it again. If you cannot, ask the site’s owner for another way in.',
  failed: 'The check did not succeed. It runs again now; this time it may take a little longer.',
  stale: 'The check took too long. It runs again now.',
  backTo: (host) => `Back to ${host}`,
  refusals: {
    badLink: {
      title: 'This check cannot start',
      text: 'The link to this check is not valid. Go back to the page you wanted and load it again.',
    },
    expired: { title: 'This check has expired', text: 'A check is valid for ten minutes. Load the page you wanted again.' },
    notVerified: {
      title: 'This check cannot continue',
      text: 'The address this check would send you back to is not a verified address of the site, so we will not send you there.',
    },
    used: { title: 'This check was already used', text: 'Load the page you wanted again.' },
    tooMany: { title: 'Too many attempts', text: 'Wait a minute, then load the page you wanted again.' },
    unavailable: { title: 'The check is unavailable for a moment', text: 'Try again in a few seconds.' },
    needsScript: {
      title: 'This check needs JavaScript',
      text: 'Turn JavaScript on for this page and load the page you wanted again. If you cannot, ask the site’s owner for another way in.',
    },
    automated: {
      title: 'This browser is run by software',
      text: 'Your browser says it is controlled by automation software, so this check cannot let it through. Open the page you wanted in an ordinary browser window.',
    },
    passGone: {
      title: 'This link has expired',
      text: 'It worked for two minutes, and only once. Load the page you wanted again.',
    },
    passBad: { title: 'This link is not valid', text: 'Go back to the page you wanted and load it again.' },
  },
};
