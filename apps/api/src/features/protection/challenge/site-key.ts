import type { EntityManager } from '@mikro-orm/postgresql';
import { Site } from '@us/db';
import { peek } from '@us/protection';
import type { Deps } from '../../../core/deps.ts';
import { passKeyOf } from '../pass-key.ts';

/** Tickets and grants are base64url(JSON).mac; a URL is at most 16 KB anyway, this keeps parsing cheap. */
export const MAX_TOKEN_LENGTH = 8192;
const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A ticket or grant shaped like a sealed token, else undefined. */
export function tokenOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_TOKEN_LENGTH && TOKEN.test(value) ? value : undefined;
}

/**
 * The site a sealed token names (read without trusting it) and that site's pass key, which then checks
 * the token. Null when the named site does not exist or has no pass key yet: then nothing it signed can
 * exist, and a stranger's made-up site id must not make us create a key.
 */
export async function passKeyForToken(
  deps: Pick<Deps, 'ciphers'>,
  em: EntityManager,
  token: string,
): Promise<{ siteId: string; passKey: string } | null> {
  const claimed = peek<{ s?: unknown }>(token);
  const siteId = claimed && typeof claimed === 'object' ? claimed.s : undefined;
  if (typeof siteId !== 'string' || !UUID.test(siteId)) return null;
  const site = await em.findOne(Site, { id: siteId.toLowerCase() }, { fields: ['passKeyEnc'] });
  if (!site?.passKeyEnc) return null;
  return { siteId: site.id, passKey: await passKeyOf(deps, em, site.id) };
}
