import type { EntityManager } from '@mikro-orm/postgresql';
import { type Role, type Scope, scopesOfRole } from '@us/shared';
import { forbidden, scopeMissing, unauthorized } from '../core/errors.ts';
import { responsibleUserId } from './access.ts';
import type { Actor } from './actor.ts';

/**
 * Checks again, inside the transaction that makes something in the caller's name (a token, a shared link, an alert
 * rule, an e-mail report, an invitation), what the request's credential was checked for at its start: the caller's
 * session or token is still live, and its maker still a member whose role holds `scopes`. The rows looked at (the
 * maker's user row, the calling token's, the membership) are read `for share`: a removal, demotion, token
 * revocation or password reset changing them meanwhile either ends first (and is seen here) or waits for this
 * transaction and then ends what it made with the rest. None leaves a thing made meanwhile standing.
 */
export async function checkStillEntitled(tx: EntityManager, actor: Actor, workspaceId: string, scopes: readonly Scope[]) {
  const maker = responsibleUserId(actor);
  await tx.execute('select 1 from users where id = ? for share', [maker]);
  if (actor.type === 'user') {
    const [session] = await tx.execute<unknown[]>('select 1 from sessions where id = ?', [actor.session.id]);
    if (!session) throw unauthorized('Your session has ended: sign in again');
  } else if (actor.type === 'token') {
    const [token] = await tx.execute<unknown[]>(
      'select 1 from api_tokens where id = ? and revoked_at is null and (expires_at is null or expires_at > now()) for share',
      [actor.token.id],
    );
    if (!token) throw unauthorized('This API token is unknown or revoked: create a new one');
  }
  const [membership] = await tx.execute<{ role: Role }[]>(
    'select role from memberships where workspace_id = ? and user_id = ? for share',
    [workspaceId, maker],
  );
  if (!membership) throw forbidden('You are no longer a member of this workspace');
  const held = new Set(scopesOfRole(membership.role));
  const lacking = scopes.find((s) => !held.has(s));
  if (lacking) throw scopeMissing(lacking, 'your role in this workspace no longer holds it; leave it out or ask an owner for it');
}
