import { accessSync, constants, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createOrm, type EmbeddedDatabase, migrate, readPostgresSettings, startEmbeddedPostgres } from '@us/db';
import { recountsSettled } from './analytics/day-store/gather.ts';
import { createServer } from './app.ts';
import { waitForDatabase } from './core/database-wait.ts';
import { within } from './core/deadline.ts';
import type { Deps } from './core/deps.ts';
import { countryOf, loadNetworks } from './core/enrich/index.ts';
import { ConfigError, deriveUrls, type Env, parseEnv } from './core/env.ts';
import { collectStartupGarbage } from './core/heap-release.ts';
import { tagKeyOf } from './core/hot/address-tag.ts';
import { createHotStore, redisTargetOf } from './core/hot/index.ts';
import { loadAppSecret } from './core/security/app-secret.ts';
import { metricsServer } from './faces/metrics.ts';
import { copyStoreOf } from './features/export/copies.ts';
import { sealPlainInternalKeys } from './features/internal-link/index.ts';
import { ownServiceAccount } from './features/search/connections.ts';
import { stopKeptFills } from './features/stats/kept-days.ts';
import { RAW_PARTITION_DAYS, startJobs, stopRollupThreads } from './jobs/index.ts';
import { errorReportsFor, loggerFor, makeDeps, statsOrmFor } from './make-deps.ts';

export interface Running {
  deps: Deps;
  url: string;
  close(): Promise<void>;
}

/**
 * How long a shutdown waits for requests in flight, for the last flush, for a running job, and for the
 * connections (database, hot state) to close.
 */
export const SHUTDOWN_DEADLINES = { requestsMs: 10_000, flushMs: 10_000, jobsMs: 5_000, connectionsMs: 5_000 } as const;

/**
 * Starts listening; resolves once it does. A port taken or not allowed, or a HOST that is not this machine's,
 * rejects with a ConfigError naming the setting (`setting`: PORT or METRICS_PORT) and what to do.
 */
async function listening(server: Server, port: number, host: string, setting: 'PORT' | 'METRICS_PORT'): Promise<number> {
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenRefused(err, port, host, setting)));
  });
  return (server.address() as AddressInfo).port;
}

function listenRefused(err: NodeJS.ErrnoException, port: number, host: string, setting: string): Error {
  const why: Record<string, string> = {
    EADDRINUSE: `${setting}: port ${port} on ${host} is in use by another process (another server?): stop it, or set ${setting} to a free port`,
    EACCES: `${setting}: port ${port} needs privileges this process lacks: use a port above 1023 (behind a reverse proxy for 80 and 443)`,
    EADDRNOTAVAIL: `HOST: ${host} is not an address of this machine: use one of its addresses, 127.0.0.1, or 0.0.0.0 for all`,
  };
  const problem = err.code ? why[err.code] : undefined;
  return problem ? new ConfigError('Cannot listen:', [problem]) : err;
}

/** Stops accepting connections, lets requests in flight finish (at most `ms`), then cuts what is left. */
async function closeServer(server: Server, ms: number): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  await within(closed, ms);
  server.closeAllConnections();
}

/** Starts everything the configuration asks for: database (embedded when no DATABASE_URL), hot state, HTTP. */
export async function start(env: Env = parseEnv()): Promise<Running> {
  const errors = await errorReportsFor(env);
  const logger = loggerFor(env, errors);
  readyDataDir(env.DATA_DIR);
  // Before the database starts: a kept secret that is refused ends the start with nothing to stop.
  const appSecret = loadAppSecret(env.APP_SECRET, env.DATA_DIR);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    const settings = env.POSTGRES_SETTINGS_FILE ? postgresSettingsOf(env.POSTGRES_SETTINGS_FILE) : undefined;
    embedded = await startEmbeddedPostgres({
      dataDir: env.DATA_DIR,
      leaveSignalsToOwner: true,
      settings,
      notice: (m) => logger.warn(m),
    });
    databaseUrl = embedded.url;
    logger.info(
      `embedded PostgreSQL running with its files in ${env.DATA_DIR}/postgres${settings ? ` and the settings of ${env.POSTGRES_SETTINGS_FILE}` : ''}`,
    );
  } else {
    if (env.POSTGRES_SETTINGS_FILE) {
      logger.warn(
        `POSTGRES_SETTINGS_FILE is for the embedded PostgreSQL; with DATABASE_URL, include ${env.POSTGRES_SETTINGS_FILE} in that PostgreSQL's postgresql.conf`,
      );
    }
    await waitForDatabase(databaseUrl, { waitMs: env.DATABASE_WAIT_SECONDS * 1000, waiting: (m) => logger.warn(m) });
  }
  try {
    return await serve(env, databaseUrl, embedded, appSecret, logger, errors);
  } catch (err) {
    // A start that fails once the embedded PostgreSQL runs (a port taken, a migration that fails) stops it, so
    // nothing is left holding DATA_DIR.
    await embedded?.stop().catch(() => {});
    throw err;
  }
}

/** The service on its database: connections, migrations, hot state, the HTTP server and the jobs. */
async function serve(
  env: Env,
  databaseUrl: string,
  embedded: EmbeddedDatabase | undefined,
  appSecret: string,
  logger: ReturnType<typeof loggerFor>,
  errors: Awaited<ReturnType<typeof errorReportsFor>>,
): Promise<Running> {
  const orm = await createOrm(databaseUrl);
  await migrate(orm);
  const statsOrm = await statsOrmFor(databaseUrl, env);
  const redis = redisTargetOf(env);
  const hot = createHotStore(redis, tagKeyOf(appSecret));
  const deps = await makeDeps({
    env,
    urls: deriveUrls(env, { host: env.HOST, port: env.PORT }),
    orm,
    statsOrm,
    hot,
    appSecret,
    logger,
    errors,
    ingest: {
      redis,
      retainRawDays: RAW_PARTITION_DAYS,
      maxBufferRows: env.INGEST_BUFFER_MAX_ROWS,
      maxBufferBytes: env.INGEST_BUFFER_MAX_MB * 1024 * 1024,
      spillDir: path.join(env.DATA_DIR, 'ingest-spill'),
    },
  });
  const { ingest } = deps;
  // Internal keys stored in plain text before they were sealed (the migration had no app secret).
  const sealed = await sealPlainInternalKeys(deps.ciphers, orm.em.fork());
  if (sealed > 0) logger.info(`sealed ${sealed} sites' internal keys stored in plain text`);
  // The network and country tables load in about half a second: before listening, not on the first
  // page report (which would hold every request of that moment up).
  loadNetworks();
  countryOf('127.0.0.1');
  collectStartupGarbage();
  const server = createServer(deps);
  const port = await listening(server, env.PORT, env.HOST, 'PORT');
  // Prometheus on a port of its own (docs/operations/observability.md); it answers until the very end of a shutdown.
  const metrics = env.METRICS_PORT ? metricsServer(deps, server.metrics) : undefined;
  if (metrics) {
    const at = await listening(metrics, env.METRICS_PORT as number, env.HOST, 'METRICS_PORT');
    logger.info(`metrics on http://${env.HOST}:${at}/metrics`);
  }
  // With PORT=0 the real port is known only now.
  deps.urls = deriveUrls(env, { host: env.HOST, port });
  // Rollups (start-up, hourly) and per-site retention (start-up, daily); once across nodes.
  const jobs = startJobs({
    orm,
    logger,
    exportCopies: copyStoreOf(env),
    searchPull: {
      googleApi: env.SEARCH_GOOGLE_API_URL,
      bingApi: env.SEARCH_BING_API_URL,
      cipher: deps.ciphers.search,
      ownKey: ownServiceAccount(deps),
    },
    billing: { provider: deps.billing },
    emailReports: deps,
    alerts: deps,
    proxyIngress: deps,
  });
  const url = `http://${env.HOST}:${port}`;
  logger.info(`listening on ${url} (hot state: ${hot.kind}; dashboard ${deps.urls.app})`);
  return {
    deps,
    url,
    /**
     * Orderly stop (SIGTERM): turn new requests away and let those in flight finish, then the proxy's
     * waiting request records and the last flush
     * (rows it cannot store in time are saved to DATA_DIR/ingest-spill and stored at the next start),
     * then the jobs, the connections and the embedded database.
     */
    async close() {
      deps.lifecycle.draining = true;
      await closeServer(server, SHUTDOWN_DEADLINES.requestsMs);
      // Proxy mode's request records still waiting in the process go to the write buffer first, a full one too.
      const last = await ingest.stop(SHUTDOWN_DEADLINES.flushMs, server.flushProxyRecords);
      if (last.error) logger.warn(`shutdown: the last flush did not finish (${String(last.error)})`);
      await within(Promise.all([jobs.stop(), recountsSettled(), stopKeptFills()]), SHUTDOWN_DEADLINES.jobsMs);
      // A site-day still counting (past the deadline) is left unwritten: the next start rolls it up.
      await stopRollupThreads();
      // Everything is stored or saved by now: a connection that will not close (a query stuck on a
      // vanished database) must not keep the process from exiting.
      const closed = Promise.all([statsOrm.close(), orm.close(), hot.close()]).catch((e) =>
        logger.warn(`shutdown: closing connections failed (${String(e)})`),
      );
      if (!(await within(closed, SHUTDOWN_DEADLINES.connectionsMs))) {
        logger.warn(`shutdown: connections still open after ${SHUTDOWN_DEADLINES.connectionsMs} ms; exiting anyway`);
      }
      deps.mailer.close();
      await embedded?.stop();
      if (metrics) await closeServer(metrics, 0);
    },
  };
}

/** DATA_DIR made if missing; one that cannot be made or written stops start-up, naming it (not a stack trace). */
function readyDataDir(dir: string) {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError('Invalid configuration:', [
      `DATA_DIR: ${dir} cannot be made or written (${code}): give a folder this process can create and write`,
    ]);
  }
}

/** POSTGRES_SETTINGS_FILE read; a file that is missing or not in postgresql.conf's syntax stops start-up, naming it. */
function postgresSettingsOf(file: string): Record<string, string> {
  try {
    return readPostgresSettings(file);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${file} does not exist` : String((err as Error).message);
    throw new ConfigError('Invalid configuration:', [
      `POSTGRES_SETTINGS_FILE: ${why} (give a file of postgresql.conf lines, e.g. infra/postgres/1gb.conf)`,
    ]);
  }
}
