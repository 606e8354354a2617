// Deleting a site's rows of several tables a span of days at a time, oldest first, each span in its own
// transaction (a stop keeps what was done): per-site retention and the purge of deleted sites.
import type { Orm } from '@us/db';
import { addDays } from '../range.ts';

export type Conn = ReturnType<Orm['em']['getConnection']>;

/** The newest day of the site's rows in `tables`, or null when none. */
export async function newestDay(conn: Conn, tables: readonly string[], siteId: string): Promise<string | null> {
  const [row] = await conn.execute<{ day: string | null }[]>(
    `select to_char(max(day), 'YYYY-MM-DD') as day from (
       ${tables.map((t) => `select max(day) as day from ${t} where site_id = ?::uuid`).join(' union all ')}
     ) d`,
    tables.map(() => siteId),
    'all',
  );
  return row?.day ?? null;
}

/** The oldest day of the site's rows in `tables` from `after` (exclusive; null: any) up to `last`, or null when none. */
async function oldestDay(
  conn: Conn,
  tables: readonly string[],
  siteId: string,
  last: string,
  after: string | null = null,
): Promise<string | null> {
  const from = after === null ? '' : ' and day > ?::date';
  const [row] = await conn.execute<{ day: string | null }[]>(
    `select to_char(min(day), 'YYYY-MM-DD') as day from (
       ${tables.map((t) => `select min(day) as day from ${t} where site_id = ?::uuid and day <= ?::date${from}`).join(' union all ')}
     ) d`,
    tables.flatMap(() => (after === null ? [siteId, last] : [siteId, last, after])),
    'all',
  );
  return row?.day ?? null;
}

/** A table per-site retention empties by day: rows before `before` only (raw days), counted in the run or not. */
export interface DayTable {
  name: string;
  before?: string;
  counted?: boolean;
}

/**
 * Deletes the site's rows of `tables` up to day `last`, oldest first, `step` days a transaction (a stop keeps what
 * was done); answers the rows deleted from the counted tables.
 */
export async function deleteOldestDays(conn: Conn, siteId: string, tables: readonly DayTable[], last: string, step: number) {
  let deleted = 0;
  const names = tables.map((t) => t.name);
  // From one day holding rows to the next: the days between (years of rollups before 92 days of raw rows) cost nothing.
  for (let from = await oldestDay(conn, names, siteId, last); from !== null && from <= last; ) {
    const to = minDay(addDays(from, step - 1), last);
    deleted += await conn.transactional(async (trx) => {
      let n = 0;
      for (const t of tables) {
        const r = await conn.execute<{ affectedRows: number }>(
          `delete from ${t.name} where site_id = ?::uuid and day between ?::date and ?::date${t.before ? ' and at < ?::timestamptz' : ''}`,
          [siteId, from, to, ...(t.before ? [t.before] : [])],
          'run',
          trx,
        );
        if (t.counted) n += r.affectedRows ?? 0;
      }
      return n;
    });
    from = await oldestDay(conn, names, siteId, last, to);
  }
  return deleted;
}

const minDay = (a: string, b: string) => (a < b ? a : b);
