import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, Workspace } from '@us/db';
import { AppError, forbidden, notFound } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Actor } from './actor.ts';

export { isUuid };

/** The workspace the caller acts in; a person without one is told to create or join one. */
export function workspaceIdOf(actor: Actor): string {
  if (!actor.workspaceId) throw new AppError(403, 'You belong to no workspace: accept an invitation or sign up for one');
  return actor.workspaceId;
}

export async function loadWorkspace(em: EntityManager, actor: Actor): Promise<Workspace> {
  return em.findOneOrFail(Workspace, { id: workspaceIdOf(actor) });
}

/**
 * The person a change is made in the name of: the signed-in person, or the person who made the token.
 * A shared link's viewer has none; authorize() keeps it out of every operation that asks.
 */
export function responsibleUserId(actor: Actor): string {
  if (actor.type === 'share') throw forbidden('A shared link shows the dashboard only');
  return actor.type === 'user' ? actor.user.id : actor.token.createdBy.id;
}

/** The API token a change is made with, or null (a signed-in person): what it makes goes when the token is revoked. */
export function tokenOf(actor: Actor): string | null {
  return actor.type === 'token' ? actor.token.id : null;
}

/** True when a site-restricted token may see this site (unrestricted callers see every site). */
export function canSeeSite(actor: Actor, siteId: string): boolean {
  // In any case, as PostgreSQL reads a uuid: an upper-case id was 404 for the very token restricted to that site.
  const id = siteId.toLowerCase();
  return actor.siteIds === null || actor.siteIds.some((s) => s.toLowerCase() === id);
}

/**
 * The site, when it belongs to the caller's workspace and is inside a token's site restriction.
 * Anything else, including another workspace's site, is the same 404.
 */
export async function loadSite(em: EntityManager, actor: Actor, siteId: string): Promise<Site> {
  const workspaceId = workspaceIdOf(actor);
  if (!isUuid(siteId) || !canSeeSite(actor, siteId)) throw notFound('site');
  const site = await em.findOne(Site, { id: siteId, workspace: workspaceId });
  if (!site) throw notFound('site');
  return site;
}

/** The sites of the caller's workspace it may see (a site-restricted token: its own), oldest first. */
export async function visibleSites(em: EntityManager, actor: Actor): Promise<{ workspaceId: string; sites: Site[] }> {
  const workspaceId = workspaceIdOf(actor);
  const where =
    actor.siteIds === null
      ? { workspace: workspaceId }
      : { workspace: workspaceId, id: { $in: actor.siteIds.filter(isUuid).map((s) => s.toLowerCase()) } };
  const sites = await em.find(Site, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { workspaceId, sites };
}
