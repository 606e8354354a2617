import type { EntityManager } from '@mikro-orm/postgresql';
import { Site } from '@us/db';
import { newKey } from '@us/protection';
import type { RotatePassKeyOutput } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import type { Deps } from '../../core/deps.ts';

/**
 * The site's pass key (signs its `us_pass` cookies and the check's return tickets), made on first use and
 * stored encrypted with the app secret. Two nodes making it at once keep the first one written.
 */
export async function passKeyOf(deps: Pick<Deps, 'ciphers'>, em: EntityManager, siteId: string): Promise<string> {
  const site = await em.findOneOrFail(Site, { id: siteId }, { fields: ['passKeyEnc'] });
  if (site.passKeyEnc) return deps.ciphers.passKey.decrypt(site.passKeyEnc);
  const sealed = deps.ciphers.passKey.encrypt(newKey());
  await em.nativeUpdate(Site, { id: siteId, passKeyEnc: null }, { passKeyEnc: sealed });
  const stored = await em.fork().findOneOrFail(Site, { id: siteId }, { fields: ['passKeyEnc'] });
  return deps.ciphers.passKey.decrypt(stored.passKeyEnc as string);
}

/**
 * Replaces the site's pass key: every `us_pass` cookie, return ticket and check grant signed with the old
 * one stops verifying. Where the service decides (the decide endpoint, the check page, `/_us/pass`, proxy
 * mode) at once: the procedure bumps the sites generation before it answers, and the gate's cached sites look
 * at it on every request (faces/collect/site-cache.ts). Edges with the SDK get the new key with their next
 * config fetch, within 60 s. Visitors who had passed take the check again.
 */
export async function rotatePassKey(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  actor: Actor,
  input: { id: string },
): Promise<RotatePassKeyOutput> {
  const site = await loadSite(em, actor, input.id);
  await em.nativeUpdate(Site, { id: site.id }, { passKeyEnc: deps.ciphers.passKey.encrypt(newKey()) });
  return { rotatedAt: new Date().toISOString() };
}
