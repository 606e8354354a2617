import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiToken } from '@us/db';
import { isUuid, workspaceIdOf } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { notFound, scopeMissing } from '../../core/errors.ts';
import { firstMissingScope, withinRestriction } from './entry.ts';
import { revokeTokenTrees } from './revocation.ts';

/**
 * Revokes a live token of the caller's workspace and, at once, every token it made and theirs.
 * Absent, already revoked, another workspace's, or (for a site-restricted caller) outside its sites:
 * the same 404. The caller must hold every scope of the token. A token may delete itself.
 */
export async function deleteToken(em: EntityManager, actor: Actor, id: string): Promise<void> {
  const workspaceId = workspaceIdOf(actor);
  const row = isUuid(id) ? await em.findOne(ApiToken, { id, workspace: workspaceId, revokedAt: null }) : null;
  if (!row || !withinRestriction(actor, row.siteIds ?? null)) throw notFound('API token');

  const missing = firstMissingScope(actor, row.scopes);
  if (missing) {
    throw scopeMissing(missing, 'this token holds it, and only a caller holding every scope of a token can delete it');
  }
  // Under the workspace's lock, as tokens are made: a token its descendant is making right now is either
  // committed before the tree is read, or sees its maker revoked (still-entitled.ts).
  await em.transactional(async (tx) => {
    await tx.execute('select 1 from workspaces where id = ? for update', [workspaceId]);
    await revokeTokenTrees(tx, [row.id], { deleteLinks: true });
  });
}
