// SPDX-License-Identifier: MIT (the edge SDK, @unseen-stats/edge, bundles this file; the rest of packages/shared is AGPL-3.0-only)
// The bot-protection gate's words (spec §2 "Bot-protection settings", "Decision"), defined once for the
// service's zod schemas (`schemas/bot.ts`) and the gate itself (`@us/protection`, which the edge worker
// bundles). This file imports nothing, so the worker gets the words without zod: keep it that way.

/** What the gate does with requests: `off` decides nothing, `log` only says what it would do, the rest act. */
export const BOT_MODES = ['off', 'log', 'challenge', 'block'] as const;
export type BotMode = (typeof BOT_MODES)[number];

/** What one request gets: a rule's action, the default for declared bots (`bots`) and every decision. */
export const BOT_ACTIONS = ['allow', 'challenge', 'deny'] as const;
export type BotAction = (typeof BOT_ACTIONS)[number];

/** The bot catalogue's categories of declared bots. */
export const BOT_CATEGORIES = [
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
export type BotCategory = (typeof BOT_CATEGORIES)[number];

/** Who the client is, as a rule's `kind` matches it and requests are stored. */
export const CLIENT_KINDS = ['browser', 'bot', 'verified-bot'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];
