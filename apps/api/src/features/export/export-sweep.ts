// Exports are kept one day (spec §8): their rows (so their links are 404 like links no export made)
// and the copies of their files. Every node sweeps (its own DATA_DIR, or the shared bucket); deleting
// twice is harmless, so no lock is taken.

import type { Orm } from '@us/db';
import { EXPORT_LIMITS } from '@us/shared';
import type { CopyStore } from './storage.ts';

export async function sweepExports(
  orm: Orm,
  copies: CopyStore | undefined,
  now: Date,
): Promise<{ rows: number; copies: number }> {
  const before = new Date(now.getTime() - EXPORT_LIMITS.keptSeconds * 1000);
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ id: string }[]>('delete from exports where created_at < ? returning id', [before], 'all');
  return { rows: rows.length, copies: copies ? await copies.sweep(before) : 0 };
}
