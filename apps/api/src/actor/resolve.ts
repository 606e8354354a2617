import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiToken, Membership, Session, type User } from '@us/db';
import { type Role, type Scope, scopesOfRole } from '@us/shared';
import { AppError, unauthorized } from '../core/errors.ts';
import type { HotStore } from '../core/hot/store.ts';
import { sha256 } from '../core/security/tokens.ts';
import { isUuid } from './access.ts';
import type { Actor } from './actor.ts';
import type { RequestInfo } from './request-info.ts';
import { type CallerToken, tokenCacheOf } from './token-cache.ts';

const TOUCH_EVERY_MS = 60_000;

/**
 * Turns the request's credential into an actor, or null when it carries none.
 * A credential that is present but unknown, revoked or expired is a 401, never anonymous.
 */
export async function resolveActor(em: EntityManager, hot: HotStore, req: RequestInfo): Promise<Actor | null> {
  const now = new Date();
  if (req.bearer !== undefined) {
    const hash = sha256(req.bearer);
    const token = await tokenCacheOf(hot).lookup(hash, () => loadToken(em, hash));
    if (!token || token.revokedAt) throw unauthorized('This API token is unknown or revoked: create a new one');
    if (token.expiresAt && token.expiresAt <= now) throw unauthorized('This API token has expired: create a new one');
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
      token.lastUsedAt = now;
      await em.nativeUpdate(ApiToken, { id: token.id }, { lastUsedAt: now });
    }
    return {
      type: 'token',
      token,
      workspaceId: token.workspaceId,
      role: null,
      scopes: token.scopes as Scope[],
      siteIds: token.siteIds,
    };
  }
  if (req.sessionCookie === undefined || req.face === 'mcp') return null;
  const session = await em.findOne(Session, { tokenHash: sha256(req.sessionCookie) }, { populate: ['user'] });
  if (!session || session.expiresAt <= now) throw unauthorized('Your session has ended: sign in again');
  if (!session.lastSeenAt || now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await em.nativeUpdate(Session, { id: session.id }, { lastSeenAt: now });
    session.lastSeenAt = now;
  }
  const user = session.user as unknown as User;
  const membership = await pickMembership(em, user.id, req.workspaceHint);
  return {
    type: 'user',
    user,
    session,
    workspaceId: membership?.workspace.id ?? null,
    role: (membership?.role as Role | undefined) ?? null,
    scopes: membership ? scopesOfRole(membership.role as Role) : [],
    siteIds: null,
  };
}

/** A token's row as the cache keeps it, or null when no token has this hash. */
async function loadToken(em: EntityManager, hash: string): Promise<CallerToken | null> {
  const t = await em.findOne(ApiToken, { tokenHash: hash });
  if (!t) return null;
  return {
    id: t.id,
    name: t.name,
    workspaceId: t.workspace.id,
    scopes: [...t.scopes],
    siteIds: t.siteIds ? [...t.siteIds] : null,
    createdBy: { id: t.createdBy.id },
    expiresAt: t.expiresAt ?? null,
    revokedAt: t.revokedAt ?? null,
    lastUsedAt: t.lastUsedAt ?? null,
  };
}

/** The workspace named by X-Workspace / ?workspace=, else the one the person joined first. */
async function pickMembership(em: EntityManager, userId: string, hint: string | undefined) {
  if (hint !== undefined) {
    const m = isUuid(hint) ? await em.findOne(Membership, { user: userId, workspace: hint }) : null;
    if (!m) {
      throw new AppError(404, 'No such workspace among yours: check X-Workspace (or ?workspace=) against /v1/me');
    }
    return m;
  }
  return em.findOne(Membership, { user: userId }, { orderBy: { joinedAt: 'asc' } });
}
