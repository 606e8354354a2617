import type { Running } from './boot.ts';
import { within } from './core/deadline.ts';
import { ConfigError } from './core/env.ts';
import { missingNodeFlags, missingProcessEnv } from './core/node-flags.ts';
import { isStartRefusal } from './core/start-refusals.ts';
import { readSettings, type Settings, staleOfflineData } from './startup-checks.ts';

let settings: Settings;
try {
  settings = readSettings();
} catch (err) {
  // Settings the server cannot start with: each on its own line, without a stack trace.
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
// The orderly stop (SIGTERM, SIGINT): a second signal more than a second after the first ends the process at
// once (one within a second is the same stop delivered twice: a terminal signals the whole process group).
// SIGTERM while the server starts on its embedded PostgreSQL (the first start's initdb and migrations take
// seconds: `docker stop`, systemd) is kept until the start ends, then stops what it started: a process ended by
// the signal would leave that PostgreSQL running, holding DATA_DIR. Ctrl-C reaches the embedded PostgreSQL too
// (one process group), and with DATABASE_URL nothing of the server's outlives it: there a signal ends the start
// as it always did.
let started: Running | undefined;
let stopAskedAt = 0;
function onStopSignal() {
  if (stopAskedAt) {
    if (Date.now() - stopAskedAt > 1000) exitNow();
    return;
  }
  stopAskedAt = Date.now();
  if (started) void stopAndExit(started);
}
/**
 * Ends the process at once, with what the ingest buffer still holds saved first (the next start stores it): rows
 * answered 202 are never dropped by an exit that skips the orderly stop.
 */
function exitNow(): never {
  try {
    started?.deps.ingest.saveHeldNow();
  } catch (err) {
    started?.deps.logger.error('ingest: the rows held could not be saved', err);
  }
  process.exit(1);
}
async function stopAndExit(r: Running) {
  try {
    await r.close();
    process.exit(0);
  } catch (err) {
    r.deps.logger.error('shutdown failed', err);
    process.exit(1);
  }
}
if (!settings.env.DATABASE_URL) process.on('SIGTERM', onStopSignal);
// The server's code loads once its settings are known to be usable: a refused start says so at once.
const { start } = await import('./boot.ts');
const running = await start(settings.env).catch((err: unknown) => {
  // A production install without DATABASE_URL, an embedded PostgreSQL that another server holds or that did not
  // start, a PostgreSQL at DATABASE_URL that cannot be reached or refuses the user, or a setting only start-up can
  // check (POSTGRES_SETTINGS_FILE's file): what to do, not a stack trace.
  if (!isStartRefusal(err)) throw err;
  console.error(err.message);
  process.exit(1);
});
started = running;
if (stopAskedAt) {
  running.deps.logger.info('stopping: asked to while starting');
  await stopAndExit(running);
}
process.on('SIGINT', onStopSignal);
if (settings.env.DATABASE_URL) process.on('SIGTERM', onStopSignal); // without it, on since before the start
const { logger } = running.deps;
if (settings.envFile) logger.info(`settings from ${settings.envFile} (variables set in the environment win over it)`);
for (const warning of [...settings.warnings, ...staleOfflineData()]) logger.warn(warning);
const missing = [...missingNodeFlags(), ...missingProcessEnv()];
if (missing.length) {
  logger.warn(
    `started without ${missing.join(' ')} (apps/api/node-flags.json, which npm start passes): expect longer pauses under steady load, or more memory`,
  );
}
// An error nothing caught ends the process as Node would (exit 1), once it is logged and reported to the
// error hook (ERROR_HOOK), which gets two seconds.
for (const source of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(source, async (err: unknown) => {
    const reported = running.deps.errors.uncaught(err, source);
    running.deps.logger.error(`${source}: the process stops`, err);
    await within(reported, 2000);
    exitNow();
  });
}
