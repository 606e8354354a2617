import type { EntityManager } from '@mikro-orm/postgresql';
import { Site } from '@us/db';
import { newKey } from '@us/protection';
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
