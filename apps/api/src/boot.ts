import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createOrm, migrate, startEmbeddedPostgres, type EmbeddedDatabase } from '@us/db';
import { createApp } from './app.ts';
import { answerClientErrors } from './http/client-error.ts';
import { type Deps, makeCiphers, realSleep } from './deps.ts';
import { deriveUrls, type Env, parseEnv } from './env.ts';
import { createHotStore } from './hot/index.ts';
import { startIngest } from './ingest/index.ts';
import { RAW_PARTITION_DAYS, startJobs } from './jobs/index.ts';
import { createLogger } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { loadAppSecret } from './security/app-secret.ts';

export interface Running {
  deps: Deps;
  url: string;
  close(): Promise<void>;
}

/** Starts everything the configuration asks for: database (embedded when no DATABASE_URL), hot state, HTTP. */
export async function start(env: Env = parseEnv()): Promise<Running> {
  const logger = createLogger(env.LOG_LEVEL);
  mkdirSync(env.DATA_DIR, { recursive: true });
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR });
    databaseUrl = embedded.url;
    logger.info(`embedded PostgreSQL running with its files in ${env.DATA_DIR}/postgres`);
  }
  const orm = await createOrm(databaseUrl);
  await migrate(orm);
  const hot = createHotStore(env.REDIS_URL);
  const mailer = createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, dataDir: env.DATA_DIR, logger });
  let urls = deriveUrls(env, { host: env.HOST, port: env.PORT });
  const ingest = await startIngest({
    orm,
    redisUrl: env.REDIS_URL,
    logger,
    mailer,
    appUrl: () => urls.app,
    retainRawDays: RAW_PARTITION_DAYS,
  });
  const deps: Deps = {
    env,
    urls,
    orm,
    hot,
    ingest,
    logger,
    mailer,
    ciphers: makeCiphers(loadAppSecret(env.APP_SECRET, env.DATA_DIR)),
    sleep: realSleep,
  };
  const app = createApp(deps);
  const server = answerClientErrors(app.listen(env.PORT, env.HOST));
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  // With PORT=0 the real port is known only now.
  deps.urls = deriveUrls(env, { host: env.HOST, port });
  urls = deps.urls;
  // Rollups (start-up, hourly) and per-site retention (start-up, daily); once across nodes.
  const jobs = startJobs({ orm, logger });
  const url = `http://${env.HOST}:${port}`;
  logger.info(`listening on ${url} (hot state: ${hot.kind}; dashboard ${deps.urls.app})`);
  return {
    deps,
    url,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await jobs.stop();
      await ingest.stop();
      await orm.close();
      await hot.close();
      deps.mailer.close();
      await embedded?.stop();
    },
  };
}
