// "Try a request" (Protection page): one made-up request through the one decision function, under the
// site's saved bot settings or proposed ones, with the client as the bot catalogue classifies it.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  classifyUserAgent,
  clientKind,
  decide,
  HOSTING_ASNS,
  isHostingNetwork,
  type RequestFacts,
  type Verification,
} from '@us/protection';
import { BotSettings, CLIENT_KINDS, Decision, zId } from '@us/shared';
import { z } from 'zod';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { decidingRule, savedBotSettings } from './tools-common.ts';

export const TRY_LIMITS = { userAgent: 1024, path: 2048 } as const;

export const TryRequestInput = z
  .object({
    id: zId,
    userAgent: z
      .string()
      .max(TRY_LIMITS.userAgent, `Use at most ${TRY_LIMITS.userAgent} characters`)
      .describe('The User-Agent header; empty for a client that sends none'),
    asn: z
      .number({ error: 'Give the network as its AS number, such as 16509' })
      .int('Give the AS number as a whole number, such as 16509')
      .min(0, 'AS numbers are 0 to 4294967295')
      .max(4_294_967_295, 'AS numbers are 0 to 4294967295')
      .optional(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'Give a two-letter country code such as DE')
      .optional(),
    path: z
      .string()
      .max(TRY_LIMITS.path, `Use at most ${TRY_LIMITS.path} characters`)
      .regex(/^\//, 'Give a path starting with /, such as /pricing'),
    verified: z
      .boolean()
      .optional()
      .describe('Whether the edge (or reverse DNS) verified the crawler; left out: it could not be checked'),
    pass: z.boolean().optional().describe('The browser carries a valid us_pass (it passed the check within a day)'),
    settings: BotSettings.optional().describe('Proposed settings to try instead of the saved ones'),
  })
  .strict();
export type TryRequestInput = z.infer<typeof TryRequestInput>;

export const TryRequestOutput = z.object({
  decision: Decision,
  settings: z.enum(['saved', 'proposed']).describe('Which settings decided'),
  mode: z.string(),
  rule: z.object({ index: z.number().int(), label: z.string().nullable() }).nullable().describe('The rule that decided'),
  client: z.object({
    kind: z.enum(CLIENT_KINDS),
    name: z.string().nullable().describe('Declared bot or client software; null for a browser'),
    category: z.string().nullable(),
    ai: z.boolean(),
    verifiable: z.boolean().describe("The bot's operator publishes a way to verify its crawler"),
    automation: z.array(z.string()).describe('Signs of automation in the user agent'),
  }),
  network: z
    .object({ asn: z.number().int(), name: z.string().nullable(), hosting: z.boolean() })
    .nullable()
    .describe('The network as the gate sees it: a hosting network can get browsers challenged'),
});
export type TryRequestOutput = z.infer<typeof TryRequestOutput>;

const verificationOf = (verified: boolean | undefined): Verification =>
  verified === undefined ? 'unknown' : verified ? 'verified' : 'failed';

/** The facts of a made-up request: the user agent through the catalogue, the network by its number. */
export function factsOfTry(input: Omit<TryRequestInput, 'id' | 'settings'>): RequestFacts {
  const asn = input.asn ?? null;
  return {
    path: input.path,
    ua: classifyUserAgent(input.userAgent),
    verification: verificationOf(input.verified),
    asn,
    // Only the number is known here: the hosting list by number, or the operator name that list gives.
    hosting: asn !== null && isHostingNetwork({ asn, org: HOSTING_ASNS.get(asn) ?? '' }),
    country: input.country ? input.country.toUpperCase() : null,
    pass: input.pass ?? false,
  };
}

export async function tryRequest(em: EntityManager, actor: Actor, input: TryRequestInput): Promise<TryRequestOutput> {
  const site = await loadSite(em, actor, input.id);
  const settings = input.settings ?? savedBotSettings(site);
  const facts = factsOfTry(input);
  const index = decidingRule(settings, facts);
  const bot = facts.ua.bot;
  return {
    decision: decide(settings, facts),
    settings: input.settings ? 'proposed' : 'saved',
    mode: settings.mode,
    rule: index === null ? null : { index, label: settings.rules[index]?.label?.trim() || null },
    client: {
      kind: clientKind(facts),
      name: bot?.name ?? null,
      category: bot?.category ?? null,
      ai: bot?.ai ?? false,
      verifiable: bot?.verifiable ?? false,
      automation: facts.ua.automation,
    },
    network: facts.asn === null ? null : { asn: facts.asn, name: HOSTING_ASNS.get(facts.asn) ?? null, hosting: facts.hosting },
  };
}
