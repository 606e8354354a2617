// A start-up's first contact with the PostgreSQL at DATABASE_URL. One that does not answer yet (refused, a host
// name not known yet, still starting up: a database and the service started together) is tried again for a while;
// one that answers but refuses this user, or that cannot be reached in the end, ends the start with one line
// saying what to do. Nothing printed carries the URL's password.
import pg from 'pg';

/** The start cannot go on with this PostgreSQL: its message is the line the server prints before exiting. */
export class DatabaseUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnreachable';
  }
}

/** Error codes of a PostgreSQL that may answer a little later: nothing listening yet, a name not resolved yet… */
const NOT_YET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
/** …or its own answer that it cannot take connections now (57P03: starting up or shutting down; 53300: full). */
const NOT_NOW = new Set(['57P03', '53300']);

/** What a refusal that waiting does not mend means, and what to do (by SQLSTATE). */
const REFUSED: Record<string, string> = {
  '28P01': 'password authentication failed: check the user and password in DATABASE_URL',
  '28000': 'this user may not connect (no pg_hba.conf entry, or no such role): check the user in DATABASE_URL and pg_hba.conf',
};

/** The URL as it may be shown: host, port, database and user, never the password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${user}${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'DATABASE_URL';
  }
}

interface Failure {
  code?: string;
  message?: string;
}

/** Whether an attempt's failure may mend itself by waiting. */
function mayAnswerLater(err: Failure): boolean {
  if (err.code && (NOT_YET.has(err.code) || NOT_NOW.has(err.code))) return true;
  // pg's own timeout of a connection attempt (connectionTimeoutMillis) carries no code.
  return !err.code && /timeout/i.test(err.message ?? '');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once the PostgreSQL at `url` takes a connection; tries again, after a second at first and at most 5 s
 * apart, until `waitMs` have passed (a last attempt then). `waiting` is told once, at the first failed attempt. A
 * database that does not exist counts as reached (migrations make it when the user may). Rejects with
 * `DatabaseUnreachable`.
 */
export async function waitForDatabase(url: string, opts: { waitMs: number; waiting?: (message: string) => void }): Promise<void> {
  const shown = describeDatabaseUrl(url);
  const started = Date.now();
  const deadline = started + opts.waitMs;
  let pause = 1000;
  let told = false;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    // A connection that fails after connecting emits 'error' besides rejecting: the rejection is enough here.
    client.on('error', () => {});
    const failure = await client.connect().then(
      () => null,
      (err: unknown) => (err ?? {}) as Failure,
    );
    await client.end().catch(() => {});
    if (failure === null || failure.code === '3D000') return;
    const message = failure.message ?? String(failure);
    const why = failure.code && !message.includes(failure.code) ? `${message} (${failure.code})` : message;
    const refused = failure.code ? REFUSED[failure.code] : undefined;
    if (refused) throw new DatabaseUnreachable(`PostgreSQL at ${shown} refused the connection: ${refused}`);
    const now = Date.now();
    if (!mayAnswerLater(failure) || now >= deadline) {
      const waited = Math.round((now - started) / 1000);
      throw new DatabaseUnreachable(
        `Cannot reach PostgreSQL at ${shown} (DATABASE_URL): ${why}` +
          (waited > 0 ? `, still after ${waited} s` : '') +
          '. Start it, or check the host, port and TLS settings in DATABASE_URL (DATABASE_WAIT_SECONDS: how long a start waits for it)',
      );
    }
    if (!told) {
      told = true;
      opts.waiting?.(
        `PostgreSQL at ${shown} does not answer yet (${why}): trying again for up to ${Math.round(opts.waitMs / 1000)} s (DATABASE_WAIT_SECONDS)`,
      );
    }
    // The last attempt at the deadline.
    await sleep(Math.min(pause, deadline - now));
    pause = Math.min(pause * 2, 5000);
  }
}
