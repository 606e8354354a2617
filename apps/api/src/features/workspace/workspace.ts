import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, type Workspace } from '@us/db';
import { PLAN_LIMITS, planOf, type Workspace as WorkspaceOut } from '@us/shared';
import { isUuid, loadWorkspace } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { seatsTaken } from '../members/index.ts';

/**
 * The workspace as the caller may see it. A site-restricted token's usage counts only the sites it
 * may see, and carries no member count.
 */
async function describe(em: EntityManager, actor: Actor, ws: Workspace): Promise<WorkspaceOut> {
  const plan = planOf(ws.plan);
  const limits = PLAN_LIMITS[plan];
  let sites: number;
  let members: number | null;
  if (actor.siteIds !== null) {
    const visible = actor.siteIds.filter(isUuid);
    sites = visible.length ? await em.count(Site, { workspace: ws.id, id: { $in: visible } }) : 0;
    members = null;
  } else {
    [sites, members] = await Promise.all([em.count(Site, { workspace: ws.id }), seatsTaken(em, ws.id)]);
  }
  return {
    id: ws.id,
    name: ws.name,
    plan,
    status: ws.status,
    createdAt: ws.createdAt.toISOString(),
    limits: { sites: limits.sites, members: limits.members, proxyHostnames: limits.proxyHostnames },
    usage: { sites, members },
  };
}

export async function getWorkspace(em: EntityManager, actor: Actor): Promise<WorkspaceOut> {
  return describe(em, actor, await loadWorkspace(em, actor));
}

export async function renameWorkspace(em: EntityManager, actor: Actor, input: { name: string }): Promise<WorkspaceOut> {
  const ws = await loadWorkspace(em, actor);
  ws.name = input.name;
  await em.flush();
  return describe(em, actor, ws);
}
