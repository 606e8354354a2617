// What ends a start (the server's, or a one-off job's) with its message alone: settings it cannot run with, a
// database it cannot reach or have, an embedded PostgreSQL it cannot start. The message says what to do; a stack
// trace would only bury it. Anything else is a fault of ours and keeps its stack.
import { EmbeddedPostgresMissing, EmbeddedPostgresUnavailable } from '@us/db';
import { DatabaseUnreachable } from './database-wait.ts';
import { ConfigError } from './env.ts';

export function isStartRefusal(err: unknown): err is Error {
  return (
    err instanceof ConfigError ||
    err instanceof DatabaseUnreachable ||
    err instanceof EmbeddedPostgresMissing ||
    err instanceof EmbeddedPostgresUnavailable
  );
}
