// Imports made and never started: each may hold 20 files of 200 MB in the database, shared with every tenant. One
// left waiting for its files this long is deleted with them (its files were kept for good).
import type { Orm } from '@us/db';

/** Days an import may wait for its files (`awaiting_files`) before it is deleted with them. */
export const ABANDONED_IMPORT_DAYS = 30;
/** Imports deleted at most per run, one a transaction (each with up to 4 GB of file chunks). */
const PER_RUN = 20;

/** Deletes imports left `awaiting_files` past ABANDONED_IMPORT_DAYS, with their files; answers how many. */
export async function sweepAbandonedImports(orm: Orm, opts: { now?: Date; siteIds?: string[] } = {}): Promise<number> {
  const conn = orm.em.getConnection();
  if (opts.siteIds && !opts.siteIds.length) return 0;
  const before = new Date((opts.now ?? new Date()).getTime() - ABANDONED_IMPORT_DAYS * 86_400_000);
  const rows = await conn.execute<{ id: string }[]>(
    `select id::text as id from imports
      where status = 'awaiting_files' and created_at < ?
        ${opts.siteIds ? `and site_id in (${opts.siteIds.map(() => '?::uuid').join(', ')})` : ''}
      order by created_at limit ?`,
    [before, ...(opts.siteIds ?? []), PER_RUN],
    'all',
  );
  let deleted = 0;
  for (const { id } of rows) {
    // Still waiting (a start meanwhile keeps it): its files go with it (import_files cascades).
    const gone = await conn.execute<unknown[]>(
      `delete from imports where id = ?::uuid and status = 'awaiting_files' returning id`,
      [id],
      'all',
    );
    deleted += gone.length;
  }
  return deleted;
}
