/**
 * Hand-kept entries that win over the referrer list (`referrers.json`), written 2026-11-28:
 * - hosts the list lacks (x.com, Bluesky's and Mastodon's main hosts, Outlook on the web for work,
 *   Kagi and Startpage, both in Matomo's CC0 list);
 * - Google's apps, which are not Google search: without them the lookup would drop `docs.google.com`
 *   to `google.com`, a search engine. Medium `unknown`: the family is known, the visit is a referral.
 */
export const REFERRER_ADDITIONS: readonly (readonly [
  source: string,
  medium: 'search' | 'social' | 'email' | 'unknown',
  hosts: readonly string[],
])[] = [
  ['Twitter', 'social', ['x.com']],
  ['Bluesky', 'social', ['bsky.app']],
  ['Mastodon', 'social', ['mastodon.social']],
  ['Outlook.com', 'email', ['outlook.office.com', 'outlook.office365.com']],
  ['Kagi', 'search', ['kagi.com']],
  ['StartPage', 'search', ['startpage.com']],
  [
    'Google',
    'unknown',
    [
      'docs.google.com',
      'calendar.google.com',
      'meet.google.com',
      'chat.google.com',
      'keep.google.com',
      'photos.google.com',
      'play.google.com',
      'classroom.google.com',
      'myaccount.google.com',
      'translate.google.com',
    ],
  ],
];
