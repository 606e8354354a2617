import { cleanText } from '@us/shared';
import { type AnalyticsDb, type AnalyticsTable, connectionOf } from './db.ts';

/** A row the write path could not store, set aside with the reason instead of blocking the rest. */
export interface DeadLetter {
  table: AnalyticsTable;
  /** The row as it was buffered (an object), or its raw text when it could not even be read. */
  row: unknown;
  reason: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function siteOf(row: unknown): string | null {
  const id = (row as { siteId?: unknown } | null)?.siteId;
  return typeof id === 'string' && UUID.test(id) ? id : null;
}

/**
 * Stores rows in `ingest_dead_letters` (table, site when known, the row as JSON text, the reason).
 * JSON.stringify escapes control characters and lone surrogates, so the text is always storable.
 * Throws when PostgreSQL cannot be reached: the caller keeps the rows and retries.
 */
export async function insertDeadLetters(db: AnalyticsDb, letters: readonly DeadLetter[]): Promise<void> {
  if (!letters.length) return;
  const params: unknown[] = [];
  const tuples = letters.map((l) => {
    const json = typeof l.row === 'string' ? JSON.stringify({ unreadable: l.row }) : JSON.stringify(l.row);
    params.push(l.table, siteOf(l.row), json ?? 'null', cleanText(l.reason, 1000));
    return '(?, ?::uuid, ?, ?)';
  });
  await connectionOf(db).execute(
    `insert into ingest_dead_letters (table_name, site_id, row_json, reason) values ${tuples.join(', ')}`,
    params,
    'run',
  );
}

/** Dead letters older than `days` are deleted (they are kept for inspection, not for ever). */
export async function pruneDeadLetters(db: AnalyticsDb, days: number): Promise<number> {
  const res = await connectionOf(db).execute<{ n: number }[]>(
    `with gone as (delete from ingest_dead_letters where created_at < now() - make_interval(days => ?) returning 1)
     select count(*)::int as n from gone`,
    [days],
    'all',
  );
  return res[0]?.n ?? 0;
}
