/**
 * A site's bot-protection settings (spec §2 "Bot-protection settings"), as plain types: this package runs
 * at the edge, where the service's zod schemas (`@us/shared`, which validates the same shape) are not
 * loaded. The words (modes, actions, categories, client kinds) come from `@us/shared/bot-vocabulary`,
 * which carries no zod; a test in the service checks the shapes agree.
 */
import type { BotAction, BotCategory, BotMode, ClientKind } from '@us/shared/bot-vocabulary';

export {
  BOT_ACTIONS,
  BOT_CATEGORIES,
  BOT_MODES,
  type BotAction,
  type BotCategory,
  type BotMode,
  CLIENT_KINDS,
  type ClientKind,
} from '@us/shared/bot-vocabulary';

type OneOrMany<T> = T | T[];

/** What a rule matches; every named field must hold, and at least one is named. */
export interface RuleMatch {
  /** Bot (or client software) name, case-insensitive. */
  bot?: OneOrMany<string>;
  category?: OneOrMany<BotCategory>;
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
  action: BotAction;
  label?: string;
  match: RuleMatch;
}

export interface ProtectionSettings {
  mode: BotMode;
  /** What a declared bot that no rule names gets when it cannot be verified. */
  bots: BotAction;
  /** First match decides. */
  rules: Rule[];
}
