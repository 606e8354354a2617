import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../core/errors.ts';

/**
 * Refuses (409, `title`) when the site already has `limit` rows in `table` (meeting `only`, a fixed SQL
 * condition of the caller's, when given). Locks the site row until the transaction ends, so rows added at
 * once each count the ones before them: call it inside the transaction that inserts, before the insert.
 */
export async function checkSiteLimit(
  tx: EntityManager,
  siteId: string,
  table: 'share_links' | 'email_reports' | 'funnels' | 'segments' | 'annotations' | 'alerts' | 'imports',
  limit: number,
  title: string,
  only = '',
): Promise<void> {
  await tx.execute('select id from sites where id = ? for update', [siteId]);
  const [{ n } = { n: 0 }] = await tx.execute<{ n: number }[]>(
    `select count(*)::int as n from ${table} where site_id = ?${only ? ` and ${only}` : ''}`,
    [siteId],
  );
  if (n >= limit) throw new AppError(409, title);
}
