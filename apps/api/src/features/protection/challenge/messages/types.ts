/** Why the check page or `/_us/pass` refuses to go on; each has a title and a text in every language. */
export type RefusalKind =
  | 'badLink'
  | 'expired'
  | 'notVerified'
  | 'used'
  | 'tooMany'
  | 'unavailable'
  | 'needsScript'
  | 'automated'
  | 'passGone'
  | 'passBad';

/**
 * Every sentence the check page and `/_us/pass` show, in one language (one file per language beside this
 * one). Plain text: the page escapes it. `{host}` style values are passed in, never concatenated by the caller.
 */
export interface Messages {
  title: string;
  intro: (host: string) => string;
  privacy: (host: string) => string;
  starting: string;
  /** Shown by the page script; `%s` is replaced with the percentage. */
  working: string;
  progressLabel: string;
  statusLabel: string;
  done: string;
  stillWorking: string;
  continue: string;
  noscript: string;
  failed: string;
  stale: string;
  backTo: (host: string) => string;
  refusals: Record<RefusalKind, { title: string; text: string }>;
}
