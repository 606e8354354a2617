/**
 * A site's bot-protection settings (spec §2 "Bot-protection settings"), as plain types: this package runs
 * at the edge, where the service's zod schemas (`@us/shared`, which validates the same shape) are not
 * loaded. A test in the service checks the two agree.
 */
export const PROTECTION_MODES = ['off', 'log', 'challenge', 'block'] as const;
export type ProtectionMode = (typeof PROTECTION_MODES)[number];

export const ACTIONS = ['allow', 'challenge', 'deny'] as const;
export type Action = (typeof ACTIONS)[number];

export const CATEGORIES = [
  'search-engine',
  'ai-search',
  'ai-assistant',
  'ai-training',
  'preview',
  'seo',
  'monitor',
  'archiver',
  'tool',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const CLIENT_KINDS = ['browser', 'bot', 'verified-bot'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

type OneOrMany<T> = T | T[];

/** What a rule matches; every named field must hold, and at least one is named. */
export interface RuleMatch {
  /** Bot (or client software) name, case-insensitive. */
  bot?: OneOrMany<string>;
  category?: OneOrMany<Category>;
  ai?: boolean;
  kind?: ClientKind;
  verified?: boolean;
  asn?: OneOrMany<number>;
  /** Two-letter country code. */
  country?: OneOrMany<string>;
  /** Path prefix. */
  path?: OneOrMany<string>;
}

export interface Rule {
  action: Action;
  label?: string;
  match: RuleMatch;
}

export interface ProtectionSettings {
  mode: ProtectionMode;
  /** What a declared bot that no rule names gets when it cannot be verified. */
  bots: Action;
  /** First match decides. */
  rules: Rule[];
}

export const DEFAULT_PROTECTION: ProtectionSettings = { mode: 'off', bots: 'allow', rules: [] };
