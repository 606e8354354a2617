import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import type { Deps } from '../../core/deps.ts';
import { newInternalKey } from './mark.ts';

type Ciphers = Pick<Deps['ciphers'], 'internalKey'>;

/** A new internal key, sealed for `sites.internal_key_enc`. */
export const newSealedInternalKey = (ciphers: Ciphers) => ciphers.internalKey.encrypt(newInternalKey());

/**
 * Opened keys by their sealed form, per cipher (app secret): the collector asks for the same cached site's key on
 * every report carrying a mark, and opening it each time was AES work per report on the collect path.
 */
const openedBy = new WeakMap<Ciphers['internalKey'], Map<string, string | null>>();
const OPENED_MAX = 10_000;

/**
 * The site's internal key in plain text: the sealed one, or a key stored before keys were sealed. Null when
 * the sealed key cannot be opened (another app secret): marks then do not count, as with no key.
 */
export function internalKeyOf(ciphers: Ciphers, site: Pick<Site, 'internalKey' | 'internalKeyEnc'>): string | null {
  const sealed = site.internalKeyEnc;
  if (!sealed) return site.internalKey ?? null;
  const opened = openedBy.get(ciphers.internalKey) ?? new Map<string, string | null>();
  openedBy.set(ciphers.internalKey, opened);
  const known = opened.get(sealed);
  if (known !== undefined) return known;
  let key: string | null;
  try {
    key = ciphers.internalKey.decrypt(sealed);
  } catch {
    key = null;
  }
  if (opened.size >= OPENED_MAX) opened.clear();
  opened.set(sealed, key);
  return key;
}

const BATCH = 500;

/**
 * Seals the internal keys stored in plain text before `internal_key_enc` existed, at start-up (the migration
 * that added the column has no app secret). Each key keeps its value, so marks already given keep counting.
 * Nodes starting together seal each row once: a row is written only while its plain key is still there.
 * Answers how many keys it sealed.
 */
export async function sealPlainInternalKeys(ciphers: Ciphers, em: EntityManager): Promise<number> {
  const db = em.getConnection();
  let sealed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db.execute<{ id: string; internal_key: string }[]>(
      'select id, internal_key from sites where internal_key is not null and id > ? order by id limit ?',
      [after, BATCH],
    );
    for (const row of rows) {
      const written = await db.execute<{ affectedRows: number }>(
        'update sites set internal_key_enc = ?, internal_key = null where id = ? and internal_key = ?',
        [ciphers.internalKey.encrypt(row.internal_key), row.id, row.internal_key],
        'run',
      );
      sealed += written.affectedRows ?? 0;
    }
    if (rows.length < BATCH) return sealed;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
}
