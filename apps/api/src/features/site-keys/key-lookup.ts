import type { EntityManager } from '@mikro-orm/postgresql';
import { type Site, SiteKey } from '@us/db';
import { PUBLIC_KEY_PATTERN, SECRET_KEY_PATTERN } from '@us/shared';
import { sha256 } from '../../core/security/tokens.ts';

/**
 * The site a public key (`pk_…`, the page script's `data-site`) belongs to, or null when the key is
 * malformed, rotated, deleted, or its site is gone (keys are deleted with their site).
 */
export async function findSiteByPublicKey(em: EntityManager, value: string): Promise<Site | null> {
  if (typeof value !== 'string' || !PUBLIC_KEY_PATTERN.test(value)) return null;
  const key = await em.findOne(SiteKey, { publicValue: value, kind: 'public' }, { populate: ['site'] });
  return key ? (key.site as unknown as Site) : null;
}

/**
 * The site a server secret (`sk_live_…`, header `x-svc-proxy`, worker secret `SVC_SECRET`) belongs to,
 * or null. Secrets are stored only as SHA-256, so the lookup is by hash.
 */
export async function findSiteBySecret(em: EntityManager, secret: string): Promise<Site | null> {
  if (typeof secret !== 'string' || !SECRET_KEY_PATTERN.test(secret)) return null;
  const key = await em.findOne(SiteKey, { secretHash: sha256(secret), kind: 'secret' }, { populate: ['site'] });
  return key ? (key.site as unknown as Site) : null;
}
