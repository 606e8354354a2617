/**
 * What kind of database failure an error is, from its SQLSTATE or socket error code (looked up along the
 * `cause` chain, since the ORM, Kysely and pg wrap each other's errors):
 * - `unavailable`: the server cannot be reached or refused the work for now (restart, connection lost,
 *   too many connections, deadlock, lock timeout). Retrying later is right; the data is not at fault.
 * - `busy`: no connection of a pool that waits a bounded time came free (everything is taken).
 * - `timeout`: a statement ran past `statement_timeout` (the question was too big).
 * - `row`: the data was refused (a value the column cannot hold, a broken constraint). Retrying the same
 *   rows fails the same way; the caller must set the row aside.
 * - `null`: anything else (a bug of ours, usually).
 */
export type DbFault = 'unavailable' | 'busy' | 'timeout' | 'row' | null;

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '25P03', // idle_in_transaction_session_timeout
]);
const UNAVAILABLE_CLASSES = ['08', '53', '58']; // connection exception, insufficient resources, system error
const ROW_CLASSES = ['22', '23']; // data exception, integrity constraint violation
const ROW_CODES = new Set(['42804', '54000', '54001']); // datatype mismatch, program limit exceeded (row too big)
const BUSY_MESSAGES = /timeout exceeded when trying to connect/;
const UNAVAILABLE_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Connection is closed|ECONNREFUSED|the database system is (starting up|shutting down)|Cannot use a pool after calling end/i;

/** The error and its causes, outermost first (bounded: cause chains can loop). */
export function* causeChain(err: unknown): Generator<unknown> {
  let e: unknown = err;
  for (let i = 0; i < 8 && e; i++) {
    yield e;
    const next = (e as { cause?: unknown; previous?: unknown }).cause ?? (e as { previous?: unknown }).previous;
    if (next === e) return;
    e = next;
  }
}

function codeOf(e: unknown): string | undefined {
  const o = e as { code?: unknown; sqlState?: unknown };
  const code = typeof o?.sqlState === 'string' ? o.sqlState : o?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error, or one of its causes, carries this SQLSTATE. */
export function hasSqlState(err: unknown, sqlState: string): boolean {
  for (const e of causeChain(err)) if (codeOf(e) === sqlState) return true;
  return false;
}

/** True when PostgreSQL refused a row because its key is already stored (unique_violation). */
export function isUniqueViolation(err: unknown): boolean {
  if (hasSqlState(err, '23505')) return true;
  // Citus reports a worker's unique violation met while it copies rows into shards (an `insert … select`
  // it runs through the coordinator) as an internal error (XX000) with PostgreSQL's own message.
  for (const e of causeChain(err)) {
    if (codeOf(e) === 'XX000' && /^duplicate key value violates unique constraint/.test(String((e as Error)?.message)))
      return true;
  }
  return false;
}

/** True when PostgreSQL refused a row that refers to one that is gone (foreign_key_violation); Citus's words as above. */
export function isForeignKeyViolation(err: unknown): boolean {
  if (hasSqlState(err, '23503')) return true;
  for (const e of causeChain(err)) {
    if (codeOf(e) === 'XX000' && /violates foreign key constraint/.test(String((e as Error)?.message))) return true;
  }
  return false;
}

export function dbFault(err: unknown): DbFault {
  for (const e of causeChain(err)) {
    const code = codeOf(e);
    if (code === '57014') return 'timeout'; // query_canceled: statement_timeout
    if (code && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2)))) return 'unavailable';
    if (code && (ROW_CODES.has(code) || ROW_CLASSES.includes(code.slice(0, 2)))) return 'row';
    if (e instanceof Error && BUSY_MESSAGES.test(e.message)) return 'busy';
    if ((e as { name?: unknown })?.name === 'ConnectionException') return 'unavailable';
    if (e instanceof Error && UNAVAILABLE_MESSAGES.test(e.message)) return 'unavailable';
  }
  return null;
}
