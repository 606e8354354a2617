import type { EntityManager } from '@mikro-orm/postgresql';
import { type Role, type Scope, scopesOfRole } from '@us/shared';
import { responsibleUserId } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { forbidden, scopeMissing, unauthorized } from '../../core/errors.ts';

/**
 * Checks again, inside the transaction that makes a token and under its workspace's lock, what the request's
 * credential was checked for at its start: the caller's session or token is still live, and its maker still a
 * member whose role holds `scopes`. A removal, demotion or token revocation holds the same lock, and a password
 * reset the maker's user row (read here `for share`), so each either ends before this look (and is seen) or waits
 * for the new token and then ends it with the rest: none leaves a token made meanwhile standing.
 */
export async function checkStillEntitled(tx: EntityManager, actor: Actor, workspaceId: string, scopes: readonly Scope[]) {
  const maker = responsibleUserId(actor);
  await tx.execute('select 1 from users where id = ? for share', [maker]);
  if (actor.type === 'user') {
    const [session] = await tx.execute<unknown[]>('select 1 from sessions where id = ?', [actor.session.id]);
    if (!session) throw unauthorized('Your session has ended: sign in again');
  } else if (actor.type === 'token') {
    const [token] = await tx.execute<unknown[]>(
      'select 1 from api_tokens where id = ? and revoked_at is null and (expires_at is null or expires_at > now())',
      [actor.token.id],
    );
    if (!token) throw unauthorized('This API token is unknown or revoked: create a new one');
  }
  const [membership] = await tx.execute<{ role: Role }[]>('select role from memberships where workspace_id = ? and user_id = ?', [
    workspaceId,
    maker,
  ]);
  if (!membership) throw forbidden('You are no longer a member of this workspace');
  const held = new Set(scopesOfRole(membership.role));
  const lacking = scopes.find((s) => !held.has(s));
  if (lacking) throw scopeMissing(lacking, 'your role in this workspace no longer holds it; leave it out or ask an owner for it');
}
