// The one place `Deps` is put together: boot.ts for the server and the test harness
// (test/support/server.ts) both call it, so a part added to `Deps` is wired the same way in both. It sits
// on the top floor beside boot.ts because it composes parts of every floor (ingest, billing, mail).
import { createOrm, type Orm } from '@us/db';
import { type StartIngestArgs, startIngest } from './analytics/ingest/index.ts';
import { workspaceShareOf, workspaceTurns } from './analytics/workspace-share.ts';
import { type Deps, makeCiphers, realSleep } from './core/deps.ts';
import type { Env, Urls } from './core/env.ts';
import type { HotStore } from './core/hot/store.ts';
import { createLogger, type LogDestination, type Logger, redactLine } from './core/logger.ts';
import { createMailer, type Mailer } from './core/mail/mailer.ts';
import { loadErrorHook } from './core/observe/error-hook.ts';
import { ErrorReports } from './core/observe/error-reports.ts';
import { billingProviderOf } from './features/billing/provider.ts';
import { countingInserter } from './features/billing/usage-counters.ts';

/** What differs between the server and the test harness; the rest of `Deps` follows from these. */
export interface DepsParts {
  env: Env;
  /** Where the server is reached; the caller sets `deps.urls` again once it listens (the port may be 0 until then). */
  urls: Urls;
  orm: Orm;
  /** The stats questions' own pool (`statsOrmFor`). */
  statsOrm: Orm;
  hot: HotStore;
  /** The secret every cipher derives its key from. */
  appSecret: string;
  /**
   * Where the write buffer queues and how it flushes (`redis` or a ready `buffer`, limits, spill
   * directory). Each batch's insert counts plan allowances and sends the Free notices, unless `insert` is given.
   */
  ingest: Omit<Partial<StartIngestArgs>, 'orm'>;
  /** Default: at LOG_LEVEL in LOG_FORMAT, secrets and addresses redacted in production (`loggerFor`). */
  logger?: Logger;
  /** Default: the ERROR_HOOK module's (`errorReportsFor`). Give it with `logger`, which tells it of the errors it logs. */
  errors?: ErrorReports;
  /** Where the default logger writes (standard output unless a test captures the lines). */
  logDestination?: LogDestination;
  /** Default: SMTP_URL, or the log and DATA_DIR/outbox.ndjson without it. */
  mailer?: Mailer;
  /** Default: really waits. The harness records the delays instead. */
  sleep?: (ms: number) => Promise<void>;
}

/** The pool for stats questions: STATS_POOL_SIZE connections, each statement cut at STATS_TIMEOUT_MS. */
export function statsOrmFor(databaseUrl: string, env: Env): Promise<Orm> {
  return createOrm(databaseUrl, {
    poolMax: env.STATS_POOL_SIZE,
    statementTimeoutMs: env.STATS_TIMEOUT_MS,
    waitForConnectionMs: env.STATS_TIMEOUT_MS,
    connectTurn: workspaceTurns(workspaceShareOf(env.STATS_POOL_SIZE)),
  });
}

/** The error reports the configuration asks for: to the ERROR_HOOK module (loaded now), or to nobody. */
export async function errorReportsFor(env: Env): Promise<ErrorReports> {
  const hook = await loadErrorHook(env.ERROR_HOOK);
  return new ErrorReports(hook, { redact: env.NODE_ENV === 'production' ? redactLine : undefined });
}

/** The logger the configuration asks for; every error it logs goes on to `errors`. */
export function loggerFor(env: Env, errors?: ErrorReports, destination?: LogDestination): Logger {
  const production = env.NODE_ENV === 'production';
  const logger = createLogger(env.LOG_LEVEL, {
    redact: production,
    format: env.LOG_FORMAT ?? (production ? 'json' : 'readable'),
    destination,
    onError: errors ? (err, msg) => errors.logged(err, msg) : undefined,
  });
  if (errors) errors.onHookFailure = (err) => logger.warn(`ERROR_HOOK: the hook failed to report (${String(err)})`);
  return logger;
}

/** Builds `Deps` and starts the write buffer's flusher (stopped by `deps.ingest.stop()`). */
export async function makeDeps(parts: DepsParts): Promise<Deps> {
  const { env, orm } = parts;
  const production = env.NODE_ENV === 'production';
  const errors = parts.errors ?? (await errorReportsFor(env));
  const logger = parts.logger ?? loggerFor(env, errors, parts.logDestination);
  const mailer =
    parts.mailer ?? createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, dataDir: env.DATA_DIR, logger, production });
  let deps: Deps | undefined;
  // The dashboard's address when a notice goes out: `deps.urls` changes once the server listens.
  const appUrl = () => (deps?.urls ?? parts.urls).app;
  const ingest = await startIngest({ orm, logger, insert: countingInserter({ orm, mailer, logger, appUrl }), ...parts.ingest });
  deps = {
    env,
    urls: parts.urls,
    orm,
    statsOrm: parts.statsOrm,
    hot: parts.hot,
    ingest,
    logger,
    errors,
    mailer,
    billing: billingProviderOf(env),
    ciphers: makeCiphers(parts.appSecret),
    sleep: parts.sleep ?? realSleep,
    lifecycle: { draining: false },
  };
  return deps;
}
