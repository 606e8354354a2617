import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeOutput } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import { forbidden } from '../../core/errors.ts';
import { listMemberships } from './memberships.ts';

/** Who is calling, in which workspace, with which scopes. */
export async function describeCaller(em: EntityManager, actor: Actor): Promise<MeOutput> {
  if (actor.type === 'token') {
    const t = actor.token;
    return {
      actor: { type: 'token', id: t.id },
      workspaceId: actor.workspaceId,
      role: null,
      scopes: actor.scopes,
      siteIds: actor.siteIds,
      token: { id: t.id, name: t.name, expiresAt: t.expiresAt?.toISOString() ?? null },
    };
  }
  if (actor.type === 'share') throw forbidden('A shared link shows the dashboard only');
  const u = actor.user;
  return {
    actor: { type: 'user', id: u.id },
    workspaceId: actor.workspaceId,
    role: actor.role,
    scopes: actor.scopes,
    siteIds: null,
    user: {
      id: u.id,
      email: u.email,
      emailVerified: Boolean(u.emailVerifiedAt),
      twoFactor: Boolean(u.twoFactorEnabledAt),
      createdAt: u.createdAt.toISOString(),
    },
    memberships: await listMemberships(em, u.id),
  };
}
