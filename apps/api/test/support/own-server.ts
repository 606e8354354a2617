import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, inject } from 'vitest';
import { createOwnDatabase, type ServerProcess } from './faults.ts';
import { startTestServer, type TestServer } from './server.ts';

/** What a suite starting the real server process works with (filled in before its tests run). */
export interface OwnServerSuite<T> {
  /** A database of its own on the suite's PostgreSQL server, migrated. */
  db: { url: string; drop(): Promise<void> };
  orm: Orm;
  /** A folder for the server's DATA_DIR. */
  dataDir: string;
  /** What `prepare` made on the database (a site, keys). */
  made: T;
  /** The server the test started: killed after the suite if it still runs. */
  server?: ServerProcess;
}

/**
 * Set-up of a suite that starts the real server (`main.ts`) as a child process: a real server runs its jobs
 * over every site at start-up, which must not touch other suites' data, so it gets a database of its own.
 * `prepare` makes what the test needs through an in-process server on that database, closed before the
 * test starts its own; `cleanUp` runs after the suite (e.g. an origin server to close).
 */
export function ownServerSuite<T>(
  name: string,
  prepare: (t: TestServer) => Promise<T>,
  cleanUp?: () => Promise<void>,
): OwnServerSuite<T> {
  const suite = { dataDir: mkdtempSync(path.join(tmpdir(), `us-${name}-`)) } as OwnServerSuite<T>;
  beforeAll(async () => {
    suite.db = await createOwnDatabase(inject('databaseUrl'));
    suite.orm = await createOrm(suite.db.url, { poolMax: 2 });
    const t = await startTestServer({ databaseUrl: suite.db.url, hot: 'memory', mail: 'outbox' });
    try {
      suite.made = await prepare(t);
    } finally {
      await t.close();
    }
  });
  afterAll(async () => {
    if (suite.server?.proc.exitCode === null) suite.server.proc.kill('SIGKILL');
    await cleanUp?.();
    await suite.orm?.close();
    await suite.db?.drop();
    rmSync(suite.dataDir, { recursive: true, force: true });
  });
  return suite;
}
