// Bot protection (spec §2 "Bot-protection settings", "Decision"; §4 "Bot protection"): the site record's
// `settings.bot`, changed with PUT /v1/sites/{id}/bot, and the decisions report. The gate itself
// (`@us/protection`) takes the same shape as plain types, with the same words (`../bot-vocabulary.ts`);
// a test checks the two shapes agree.
import { z } from 'zod';
import { BOT_ACTIONS, BOT_CATEGORIES, BOT_MODES, CLIENT_KINDS } from '../bot-vocabulary.ts';
import { zId, zTimestamp } from './common.ts';

export const BOT_LIMITS = { rules: 100, listItems: 50, label: 80, name: 64, path: 512 } as const;

/** A value or a list of 1-50 of them. */
const oneOrMany = <T extends z.ZodType>(item: T, what: string) =>
  z.union(
    [item, z.array(item).min(1, `Give at least one ${what}`).max(BOT_LIMITS.listItems, `List at most ${BOT_LIMITS.listItems}`)],
    { error: `Give one ${what} or a list of 1 to ${BOT_LIMITS.listItems}` },
  );

const zBotName = z
  .string()
  .trim()
  .min(1, 'Give a bot name such as GPTBot (see the bot names in top/bot)')
  .max(BOT_LIMITS.name, `Use at most ${BOT_LIMITS.name} characters`);
const zCategory = z.enum(BOT_CATEGORIES, { error: `Use one of the categories ${BOT_CATEGORIES.join(', ')}` });
const zAsn = z
  .number({ error: 'Give the network as its AS number, such as 16509' })
  .int('Give the AS number as a whole number, such as 16509')
  .min(0, 'AS numbers are 0 to 4294967295')
  .max(4_294_967_295, 'AS numbers are 0 to 4294967295');
const zCountry = z.string().regex(/^[A-Za-z]{2}$/, 'Give a two-letter country code such as DE');
const zPathPrefix = z
  .string()
  .max(BOT_LIMITS.path, `Use at most ${BOT_LIMITS.path} characters`)
  .regex(/^\//, 'Give a path prefix starting with /, such as /admin');

export const BotRuleMatch = z
  .object({
    bot: oneOrMany(zBotName, 'bot name').optional(),
    category: oneOrMany(zCategory, 'category').optional(),
    ai: z.boolean().optional(),
    kind: z.enum(CLIENT_KINDS, { error: 'Use kind browser, bot or verified-bot' }).optional(),
    verified: z.boolean().optional(),
    asn: oneOrMany(zAsn, 'AS number').optional(),
    country: oneOrMany(zCountry, 'country').optional(),
    path: oneOrMany(zPathPrefix, 'path').optional(),
  })
  .strict()
  .refine((m) => Object.values(m).some((v) => v !== undefined), {
    message:
      'Name at least one of bot, category, ai, kind, verified, asn, country or path: an empty match would match everything',
  });
export type BotRuleMatch = z.infer<typeof BotRuleMatch>;

export const BotRule = z
  .object({
    action: z.enum(BOT_ACTIONS, { error: 'Use action allow, challenge or deny' }),
    label: z
      .string()
      .trim()
      .min(1, 'Give the rule a label, or leave label out')
      .max(BOT_LIMITS.label, `Use at most ${BOT_LIMITS.label} characters`)
      .optional(),
    match: BotRuleMatch,
  })
  .strict();
export type BotRule = z.infer<typeof BotRule>;

export const BotSettings = z.object({
  mode: z.enum(BOT_MODES, { error: 'Use mode off, log, challenge or block' }),
  bots: z.enum(BOT_ACTIONS, { error: 'Use bots allow, challenge or deny' }),
  rules: z.array(BotRule).max(BOT_LIMITS.rules, `Use at most ${BOT_LIMITS.rules} rules`),
});
export type BotSettings = z.infer<typeof BotSettings>;

export const DEFAULT_BOT_SETTINGS: BotSettings = { mode: 'off', bots: 'allow', rules: [] };

export const SiteBotInput = z.object({ id: zId }).strict();
export const UpdateSiteBotInput = BotSettings.safeExtend({ id: zId }).strict();
export type UpdateSiteBotInput = z.infer<typeof UpdateSiteBotInput>;
export const SiteBotOutput = BotSettings;

export const RotatePassKeyInput = z.object({ id: zId }).strict();
export const RotatePassKeyOutput = z.object({
  rotatedAt: zTimestamp.describe('When the new pass key replaced the old one'),
});
export type RotatePassKeyOutput = z.infer<typeof RotatePassKeyOutput>;

/** Decision (spec §2): what the gate did with one request. */
export const Decision = z.object({
  action: z.enum(BOT_ACTIONS),
  reason: z.string(),
  risk: z.number().int().min(-1).max(100).describe('0-100 for a browser, -1 for a bot'),
  signals: z.array(z.string()).describe('Behaviour signs seen'),
});
export type Decision = z.infer<typeof Decision>;

/** GET /v1/sites/{id}/bot/decisions: what the gate did over `days` (every request except the team's own). */
export const BotDecisionsQuery = z.object({ id: zId, days: z.number().int().min(1).max(90).default(7) }).strict();
export type BotDecisionsQuery = z.infer<typeof BotDecisionsQuery>;

const ActionCounts = {
  allow: z.number().int(),
  challenge: z.number().int(),
  deny: z.number().int(),
};

export const BotDecisionsReport = z.object({
  from: z.string().describe('First day (YYYY-MM-DD, site time zone)'),
  to: z.string(),
  totals: z.object({ ...ActionCounts, total: z.number().int() }).describe('Requests per action'),
  series: z.array(z.object({ day: z.string(), ...ActionCounts })).describe('Per day, every day of the range'),
  byCategory: z
    .array(z.object({ category: z.string().nullable().describe('null: browsers and unknown clients'), ...ActionCounts }))
    .describe('Per crawler category'),
  rows: z
    .array(
      z.object({
        action: z.enum(BOT_ACTIONS),
        reason: z.string(),
        kind: z.string().nullable(),
        category: z.string().nullable(),
        name: z.string().nullable().describe('Crawler or client software name; null for a browser'),
        count: z.number().int(),
      }),
    )
    .describe('Requests by action, reason and crawler, most first (at most 100)'),
  setupProblems: z
    .array(
      z.object({
        hostname: z.string().describe('A hostname registered on the site'),
        problem: z
          .enum(['unverified', 'proxy-not-live'])
          .describe('unverified: its TXT record was never found; proxy-not-live: a proxy hostname not live at the edge yet'),
        lastSeen: z
          .string()
          .nullable()
          .describe('When a challenge there last could not send its visitor to the check (last 7 days); null: none seen'),
        message: z.string().describe('The problem and its fix in words'),
      }),
    )
    .describe(
      'Hostnames of the site a check cannot return to: while the site challenges or blocks, and whenever such a challenge was seen in the last 7 days. A visitor challenged there gets a page saying the check cannot bring them back, never the check.',
    ),
  otherHostnames: z
    .number()
    .int()
    .describe(
      'Hostnames not on this site with challenges that could not send their visitor to the check in the last 7 days (counted, never named: a hostname is whatever the visitor sent)',
    ),
});
export type BotDecisionsReport = z.infer<typeof BotDecisionsReport>;

// ---------- the gate's wire between the service and its edges (packages/protection/README.md) ----------

/** GET {COLLECT_URL}/protection (header `x-svc-proxy: <site secret>`): what an edge needs to decide alone. */
export const ProtectionConfig = BotSettings.extend({
  site: z.string().describe('Site id'),
  passKey: z.string().describe('Signs and checks us_pass cookies and return tickets (keep it secret)'),
  challengeUrl: z.string().describe('Where a challenged navigation goes: `302 {challengeUrl}?t=<ticket>`'),
  returnHosts: z.array(z.string()).describe('Hostnames a check may return to: verified, or active in proxy mode'),
  behaviour: z.object({
    day: z.string().describe('UTC day the key belongs to (YYYY-MM-DD); codes change with it'),
    dayKey: z.string().describe('behaviourCode(dayKey, ip, ua) files a visitor'),
    flagged: z.record(z.string(), z.array(z.string())).describe('Visitors with signs in the last day: code → signs'),
  }),
  maxAgeSeconds: z.number().int().describe('Keep it at most this long, then ask again with If-None-Match'),
});
export type ProtectionConfig = z.infer<typeof ProtectionConfig>;

export const DECIDE_LIMITS = { ua: 1024, path: 2048, host: 253, pass: 128, asOrg: 256 } as const;
const DECIDE_BUDGET = z
  .number()
  .int('Give the budget in whole milliseconds')
  .min(1, 'Give a budget of at least 1 ms')
  .max(10_000, 'Give a budget of at most 10000 ms');

/** POST {COLLECT_URL}/decide (header `x-svc-proxy: <site secret>`): one request to decide, from proxy mode or another platform. */
export const DecideRequest = z
  .object({
    ip: z.string().min(1, 'Give the client address').max(64, 'Give the client address (at most 64 characters)'),
    ua: z.string().max(DECIDE_LIMITS.ua, `Send at most ${DECIDE_LIMITS.ua} characters of the user agent`),
    path: z
      .string()
      .max(DECIDE_LIMITS.path, `Send at most ${DECIDE_LIMITS.path} characters of path and query`)
      .regex(/^\//, 'Give the path (and query) the client asked for, starting with /'),
    host: z
      .string()
      .min(1, 'Give the hostname the client asked for')
      .max(DECIDE_LIMITS.host, 'Give a hostname of at most 253 characters'),
    pass: z.string().max(DECIDE_LIMITS.pass, 'Send the us_pass cookie value as it is').optional(),
    verifiedBot: z.boolean().optional().describe("The platform's own verdict on a declared bot; leave it out when it has none"),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'Give a two-letter country code such as DE')
      .optional(),
    asn: z.number().int().min(0).max(4_294_967_295, 'AS numbers are 0 to 4294967295').optional(),
    asOrg: z.string().max(DECIDE_LIMITS.asOrg).optional(),
    tls: z.string().max(32).optional().describe('TLS version, e.g. TLSv1.3'),
    tlsClass: z.string().max(32).optional().describe('modern, legacy, non-browser or unknown'),
    budgetMs: DECIDE_BUDGET.optional().describe(
      'How long the caller waits for the answer (protect(): 50 ms): crawler lookups are waited for 60 % of it, then finish in the background',
    ),
  })
  .strict();
export type DecideRequest = z.infer<typeof DecideRequest>;

/**
 * POST {COLLECT_URL}/verify (header `x-svc-proxy: <site secret>`): whether a declared crawler at an address
 * is who it says, for an edge whose platform gives no verdict.
 */
export const VerifyRequest = z
  .object({
    ip: z.string().min(1, 'Give the client address').max(64, 'Give the client address (at most 64 characters)'),
    ua: z.string().max(DECIDE_LIMITS.ua, `Send at most ${DECIDE_LIMITS.ua} characters of the user agent`),
    budgetMs: DECIDE_BUDGET.optional().describe('How long the caller waits for the answer (the edge SDK: 50 ms)'),
  })
  .strict();
export type VerifyRequest = z.infer<typeof VerifyRequest>;

export const VerifyAnswer = z.object({
  verification: z.enum(['verified', 'failed', 'unknown']),
  bot: z.string().nullable().describe('The crawler the user agent claims to be; null when it claims none'),
  maxAgeSeconds: z
    .number()
    .int()
    .describe('How long the answer may be kept for this address and crawler; 0 while the lookup is still running'),
});
export type VerifyAnswer = z.infer<typeof VerifyAnswer>;

export const DecideAnswer = Decision.extend({
  challengeUrl: z.string().optional().describe('For a challenge: where to send the browser (302), with its return ticket'),
  verifiedBot: z
    .boolean()
    .optional()
    .describe(
      "For a declared crawler: whether it is who it says (the operator's ranges, forward-confirmed reverse DNS, or the platform's verdict sent); absent for browsers and while a lookup is still running. Recorded with the request (`verifiedBot`)",
    ),
});
export type DecideAnswer = z.infer<typeof DecideAnswer>;
