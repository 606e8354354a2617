import type { EntityManager } from '@mikro-orm/postgresql';
import type { Cipher } from '../security/cipher.ts';
import { normaliseEmail } from './address.ts';

/**
 * Addresses that asked a workspace for no more e-mail (unsubscribed from one of its reports, or said no
 * to a report confirmation). Per workspace: no report or invitation of that workspace is sent to them;
 * other workspaces are not affected. Only a keyed hash of the normalised address is stored (table
 * `mail_suppressions`), so the list can be compared against without holding the addresses.
 */
const keyOf = (cipher: Cipher, address: string) => cipher.mac(`suppressed\n${normaliseEmail(address)}`);

export async function suppress(em: EntityManager, cipher: Cipher, workspaceId: string, address: string): Promise<void> {
  await em.execute('insert into mail_suppressions (workspace_id, address_key) values (?, ?) on conflict do nothing', [
    workspaceId,
    keyOf(cipher, address),
  ]);
}

export async function isSuppressed(em: EntityManager, cipher: Cipher, workspaceId: string, address: string): Promise<boolean> {
  const rows = await em.execute<unknown[]>('select 1 from mail_suppressions where workspace_id = ? and address_key = ?', [
    workspaceId,
    keyOf(cipher, address),
  ]);
  return rows.length > 0;
}

/** Of `addresses` (of one workspace), those on its list. */
export async function suppressedOf(
  em: EntityManager,
  cipher: Cipher,
  workspaceId: string,
  addresses: string[],
): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const byKey = new Map(addresses.map((a) => [keyOf(cipher, a), a]));
  const keys = [...byKey.keys()];
  const rows = await em.execute<{ address_key: string }[]>(
    `select address_key from mail_suppressions where workspace_id = ? and address_key in (${keys.map(() => '?').join(', ')})`,
    [workspaceId, ...keys],
  );
  return new Set(rows.map((r) => byKey.get(r.address_key) as string));
}
