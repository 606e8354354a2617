// One-off runs of the background jobs against DATABASE_URL (the server runs them on its own timers):
//   node --conditions=@unseen-stats/source --import tsx apps/api/src/jobs/run.ts [rollups|retention|partitions|all] [--now=ISO] [--max-days=N]
// rollups: every complete site-day not rolled up yet (repeats until none is left, or one pass with --max-days);
// retention: per-site retention, then deleted sites' rows and imports left without their files (as the server's
// daily run); partitions: drop raw partitions older than 92 days that are rolled up.
import { createOrm, migrate } from '@us/db';
import { applySiteRetention, dropRolledUpPartitions } from '../analytics/rollup/retention.ts';
import { runRollups } from '../analytics/rollup/rollup.ts';
import { purgeDeletedSites } from '../analytics/rollup/site-purge.ts';
import { waitForDatabase } from '../core/database-wait.ts';
import { type Env, loadEnvFile, parseEnv } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { isStartRefusal } from '../core/start-refusals.ts';
import { sweepAbandonedImports } from '../features/imports/index.ts';

const args = process.argv.slice(2);
const job = args.find((a) => !a.startsWith('--')) ?? 'all';
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const now = flag('now') ? new Date(flag('now') as string) : new Date();
const maxDays = flag('max-days') ? Number(flag('max-days')) : undefined;
if (Number.isNaN(now.getTime()) || !['rollups', 'retention', 'partitions', 'all'].includes(job)) {
  console.error('usage: run.ts [rollups|retention|partitions|all] [--now=ISO] [--max-days=N]');
  process.exit(2);
}
/** Settings it cannot run with, or a database it cannot reach: what to do, not a stack trace. */
function told(err: unknown): never {
  if (!isStartRefusal(err)) throw err;
  console.error(err.message);
  process.exit(1);
}
let env: Env;
try {
  loadEnvFile();
  env = parseEnv();
} catch (err) {
  told(err);
}
const url = env.DATABASE_URL;
if (!url) {
  console.error('Set DATABASE_URL');
  process.exit(2);
}
const logger = createLogger('info', { format: 'readable' });
// As the server does: a PostgreSQL that does not answer yet is waited for (DATABASE_WAIT_SECONDS).
await waitForDatabase(url, { waitMs: env.DATABASE_WAIT_SECONDS * 1000, waiting: (m) => logger.warn(m) }).catch(told);
const orm = await createOrm(url, { poolMax: 3 });
try {
  await migrate(orm);
  if (job === 'rollups' || job === 'all') {
    for (;;) {
      const run = await runRollups(orm, { now, maxDays, logger, wait: true });
      logger.info(`rollups: ${JSON.stringify(run)}`);
      if (!run.more || maxDays !== undefined || run.failed) break;
    }
  }
  if (job === 'retention' || job === 'all') {
    logger.info(`site retention: ${JSON.stringify(await applySiteRetention(orm, { now, logger, wait: true }))}`);
    logger.info(`deleted sites: ${JSON.stringify(await purgeDeletedSites(orm, { now, logger, wait: true }))}`);
    logger.info(`imports left without their files: ${await sweepAbandonedImports(orm, { now })}`);
  }
  if (job === 'partitions' || job === 'all') {
    logger.info(`raw partitions: ${JSON.stringify(await dropRolledUpPartitions(orm, { now, logger, wait: true }))}`);
  }
} finally {
  await orm.close();
}
