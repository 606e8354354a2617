import type { EntityManager } from '@mikro-orm/postgresql';
import { Membership, type Workspace } from '@us/db';
import type { Membership as MembershipOut, Plan, Role } from '@us/shared';

/** The person's workspaces, oldest membership first. */
export async function listMemberships(em: EntityManager, userId: string): Promise<MembershipOut[]> {
  const rows = await em.find(Membership, { user: userId }, { populate: ['workspace'], orderBy: { joinedAt: 'asc' } });
  return rows.map((m) => {
    const ws = m.workspace as unknown as Workspace;
    return { workspaceId: ws.id, name: ws.name, role: m.role as Role, plan: ws.plan as Plan };
  });
}
