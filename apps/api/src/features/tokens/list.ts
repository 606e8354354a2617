import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiToken } from '@us/db';
import type { TokenListOutput } from '@us/shared';
import { workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { toEntry, withinRestriction } from './entry.ts';

/**
 * The workspace's tokens that are not revoked, newest first. Expired tokens stay listed (their
 * `expiresAt` is in the past) so they can be deleted: deleting one also revokes the tokens it made,
 * which may still be live. A site-restricted caller sees only tokens within its own sites.
 */
export async function listTokens(em: EntityManager, actor: Actor): Promise<TokenListOutput> {
  const rows = await em.find(
    ApiToken,
    { workspace: workspaceIdOf(actor), revokedAt: null },
    { orderBy: { createdAt: 'desc', id: 'asc' } },
  );
  return { tokens: rows.filter((row) => withinRestriction(actor, row.siteIds ?? null)).map(toEntry) };
}
