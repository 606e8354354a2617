import type { RouterInputs, RouterOutputs } from '@us/api';

/** The shapes of the Protection page, as the API answers them. */
export type BotSettings = RouterOutputs['sites']['get']['site']['settings']['bot'];
export type Rule = BotSettings['rules'][number];
export type RuleMatch = Rule['match'];
export type Mode = BotSettings['mode'];
export type Action = Rule['action'];
export type DryRun = RouterOutputs['botTools']['dryRun'];
export type TryInput = RouterInputs['botTools']['tryRequest'];
export type TryAnswer = RouterOutputs['botTools']['tryRequest'];
export type AiTraffic = RouterOutputs['botTools']['aiTraffic'];

type Category = NonNullable<Exclude<RuleMatch['category'], readonly unknown[]>>;
type Kind = NonNullable<RuleMatch['kind']>;

/** The modes in the words of the decision table (packages/protection/README.md). */
export const MODES: readonly { value: Mode; label: string; text: string }[] = [
  {
    value: 'off',
    label: 'Off',
    text: 'Serves every request and decides nothing; reasons say “off: protection is off”.',
  },
  {
    value: 'log',
    label: 'Log',
    text: 'Serves every request and records what it would have done (“log: would challenge: …”), so you can watch before acting.',
  },
  {
    value: 'challenge',
    label: 'Challenge',
    text: 'Acts: rules and the default for bots apply, an unverified claim to be a verifiable crawler is refused, and a browser on a hosting network, running software that never runs page scripts or showing two automation signs is sent to the check page.',
  },
  {
    value: 'block',
    label: 'Block',
    text: 'Acts like challenge, except that a browser running software that never runs page scripts or showing two automation signs of its own (its user agent’s, its request’s) is refused; one flagged on signs remembered for its address, which others behind the same address may have caused, still gets the check; and one flagged only for its hosting network is served: the network alone never refuses anyone.',
  },
];

export const ACTIONS: readonly { value: Action; label: string; done: string }[] = [
  { value: 'allow', label: 'Allow', done: 'allowed' },
  { value: 'challenge', label: 'Challenge', done: 'challenged' },
  { value: 'deny', label: 'Deny', done: 'refused' },
];

export const BOT_DEFAULTS: readonly { value: Action; label: string }[] = [
  { value: 'allow', label: 'Allow: serve them' },
  { value: 'challenge', label: 'Challenge: send them to the check page' },
  { value: 'deny', label: 'Deny: refuse them' },
];

export const CATEGORIES: readonly { value: Category; label: string }[] = [
  { value: 'search-engine', label: 'Search engines' },
  { value: 'ai-search', label: 'AI search' },
  { value: 'ai-assistant', label: 'AI assistants' },
  { value: 'ai-training', label: 'AI training' },
  { value: 'preview', label: 'Link previews' },
  { value: 'seo', label: 'SEO tools' },
  { value: 'monitor', label: 'Uptime monitors' },
  { value: 'archiver', label: 'Archivers' },
  { value: 'tool', label: 'HTTP tools' },
  { value: 'other', label: 'Other bots' },
];

export const KINDS: readonly { value: Kind; label: string }[] = [
  { value: 'browser', label: 'Browsers' },
  { value: 'bot', label: 'Bots (not verified)' },
  { value: 'verified-bot', label: 'Verified bots' },
];

export type { Category, Kind };

export type Decisions = RouterOutputs['bot']['decisions'];
