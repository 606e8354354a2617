import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiToken } from '@us/db';
import type { Scope } from '@us/shared';
import { randomToken, sha256 } from '../../core/security/tokens.ts';

export const TOKEN_PREFIX = 'ust_';
/** How much of a token lists show: enough to tell tokens apart, far too little to use. */
const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 8;

/** Makes an API token; returns the secret (shown once) and the stored row (hash only). */
export async function issueToken(
  em: EntityManager,
  input: {
    workspaceId: string;
    createdBy: string;
    name: string;
    scopes: Scope[];
    siteIds?: string[] | null;
    expiresAt?: Date | null;
    parentToken?: string | null;
  },
) {
  const secret = `${TOKEN_PREFIX}${randomToken(32)}`;
  const row = em.create(ApiToken, {
    workspace: input.workspaceId,
    name: input.name,
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
    tokenHash: sha256(secret),
    scopes: input.scopes,
    siteIds: input.siteIds ?? null,
    createdBy: input.createdBy,
    parentToken: input.parentToken ?? null,
    expiresAt: input.expiresAt ?? null,
  });
  await em.flush();
  return { secret, row };
}
