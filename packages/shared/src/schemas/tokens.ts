// Request and answer schemas of API tokens (spec §2 "API token", §4 "Tokens", §8 limits).
import { z } from 'zod';
import { SCOPES } from '../scopes.ts';
import { zId, zName, zTimestamp } from './common.ts';

/**
 * Spec §8: at most 15 scopes (every scope once) and 100 site ids per token. Ours: at most 200 live tokens (not
 * revoked, not expired) per workspace; each has its own request budget, and every node caches them.
 */
/**
 * `madePerWorkspacePerDay` bounds what the live cap does not: tokens made to expire (or be deleted) at once take no
 * live place, and each stays a row (an expired one listed until deleted).
 */
export const TOKEN_LIMITS = { scopes: SCOPES.length, siteIds: 100, livePerWorkspace: 200, madePerWorkspacePerDay: 1000 } as const;

const zTokenScope = z.enum(SCOPES, {
  error: `Use one of the ${SCOPES.length} scope names, such as sites:read or analytics:read`,
});

/** Reports the second occurrence of a value at its own index, so the field reads `scopes[2]`. */
function noDuplicates(what: string) {
  return (list: readonly string[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    list.forEach((value, i) => {
      const key = value.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i], message: `${value} is listed twice: list each ${what} once` });
      seen.add(key);
    });
  };
}

/** One token as lists show it: never the secret, only its display prefix. */
export const TokenEntry = z.object({
  id: zId,
  name: z.string(),
  prefix: z.string().describe('The first characters of the secret, to tell tokens apart; never enough to use'),
  scopes: z.array(zTokenScope),
  siteIds: z.array(zId).nullable().describe('Sites the token is restricted to; null = every site of the workspace'),
  createdBy: zId.describe('Id of the person who made the token (for a token made by a token: that token’s maker)'),
  createdAt: zTimestamp,
  expiresAt: zTimestamp.nullable(),
  lastUsedAt: zTimestamp.nullable(),
});
export type TokenEntry = z.infer<typeof TokenEntry>;

export const TokenListOutput = z.object({ tokens: z.array(TokenEntry) });
export type TokenListOutput = z.infer<typeof TokenListOutput>;

export const CreateTokenInput = z
  .object({
    name: zName,
    scopes: z
      .array(zTokenScope)
      .min(1, 'Give the token at least one scope')
      .max(TOKEN_LIMITS.scopes, `Give at most ${TOKEN_LIMITS.scopes} scopes`)
      .superRefine(noDuplicates('scope')),
    siteIds: z
      .array(zId)
      .min(1, 'List at least one site id, or omit siteIds for a token that covers every site')
      .max(TOKEN_LIMITS.siteIds, `List at most ${TOKEN_LIMITS.siteIds} site ids`)
      .superRefine(noDuplicates('site id'))
      .nullable()
      .optional()
      .describe('Restrict the token to these sites; omit (or null) for every site'),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'Give a date-time such as 2030-01-31T12:00:00Z' })
      .nullable()
      .optional()
      .describe('When the token stops working (in the future); omit (or null) for a token that does not expire'),
  })
  .strict();
export type CreateTokenInput = z.infer<typeof CreateTokenInput>;

export const CreateTokenOutput = TokenEntry.extend({
  token: z.string().describe('The full secret: shown this once, store it now'),
  shownOnce: z.literal(true),
});
export type CreateTokenOutput = z.infer<typeof CreateTokenOutput>;

export const TokenIdInput = z.object({ id: zId }).strict();

/** Where a token is used (dashboard-only `tokens.endpoints`): filled into the connection snippets shown with a new token. */
export const TokenEndpointsOutput = z.object({
  apiUrl: z.string().describe('Base of the REST routes (`/v1/...`)'),
  mcpUrl: z.string().describe('The MCP endpoint (Streamable HTTP)'),
  openapiUrl: z.string(),
  docsUrl: z.string().describe('The API reference page'),
});
export type TokenEndpointsOutput = z.infer<typeof TokenEndpointsOutput>;
