import type { EntityManager } from '@mikro-orm/postgresql';
import { SHARE_VIEW_HOURS } from '@us/shared';
import type { Deps } from '../core/deps.ts';
import { tooMany, unauthorized } from '../core/errors.ts';
import type { Cipher } from '../core/security/cipher.ts';
import { safeEqual } from '../core/security/tokens.ts';
import type { ShareActor } from './actor.ts';
import { makerIsMember } from './makers.ts';

/** Calls one shared link's viewers may make per minute, all together (a dashboard view makes about 12). */
export const SHARE_CALLS_PER_MINUTE = 600;

/**
 * A view is what opening a shared link (and its password) gives: `<link id>.<expiry seconds>.<mac>`,
 * signed with the app secret, so a password is checked once per view rather than on every call. The
 * link is still looked up on every call, so revoking it (or its maker leaving) ends its views at once.
 */
export function signView(cipher: Cipher, linkId: string, now = new Date()): { view: string; expiresAt: Date } {
  const expires = Math.floor(now.getTime() / 1000) + SHARE_VIEW_HOURS * 3600;
  const body = `${linkId}.${expires}`;
  return { view: `${body}.${cipher.mac(`view\n${body}`)}`, expiresAt: new Date(expires * 1000) };
}

/** The link id of a view that is well formed, signed by us and not expired; else null. */
export function readView(cipher: Cipher, view: string, now = new Date()): string | null {
  const parts = view.split('.');
  if (parts.length !== 3 || view.length > 200) return null;
  const [linkId, expires, mac] = parts as [string, string, string];
  if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now.getTime()) return null;
  return safeEqual(mac, cipher.mac(`view\n${linkId}.${expires}`)) ? linkId : null;
}

/** The viewer of a shared link, from the X-Share-View header; a view that has ended is a 401 saying what to do. */
export async function resolveShareView(deps: Deps, em: EntityManager, view: string): Promise<ShareActor> {
  const linkId = readView(deps.ciphers.share, view);
  if (!linkId) throw unauthorized('This shared view has ended: open the shared link again');
  const rows = await em
    .getConnection()
    .execute<{ site_id: string; workspace_id: string }[]>(
      `select l.site_id, l.workspace_id from share_links l where l.id = ? and ${makerIsMember('l')}`,
      [linkId],
      'all',
    );
  const link = rows[0];
  // Revoked, or its maker left the workspace (actor/makers.ts).
  if (!link) throw unauthorized('This shared link was revoked: ask whoever shared it for a new one');
  // Counted before it is checked, so calls sent at once each see the ones before them.
  const key = `share-calls:${linkId}`;
  if ((await deps.hot.incr(key, 60)) > SHARE_CALLS_PER_MINUTE) {
    const wait = Math.max(1, await deps.hot.ttl(key));
    throw tooMany(wait, `This shared link is being read very often: wait ${wait} seconds, then reload`);
  }
  return {
    type: 'share',
    shareId: linkId,
    workspaceId: link.workspace_id,
    role: null,
    scopes: ['analytics:read'],
    siteIds: [link.site_id],
  };
}
