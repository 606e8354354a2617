/**
 * `npm run seed:demo [-- --days 180 --pageviews 1000000]`: a demo account with a site "Demo shop"
 * (demo.example) and months of generated traffic, in the configured database (DATABASE_URL, or the
 * embedded PostgreSQL in DATA_DIR — the same one `npm start` uses). Safe to run again: the user,
 * workspace and site are found by e-mail and name, and the site's earlier traffic is replaced.
 *
 * Options (or environment): --days (SEED_DAYS, default 180), --pageviews (SEED_PAGEVIEWS, default
 * 1000000), --email (SEED_EMAIL), --password (SEED_PASSWORD), --jobs (SEED_JOBS, default 2).
 */
import { parseArgs } from 'node:util';
import { createOrm, type EmbeddedDatabase, EmbeddedPostgresUnavailable, migrate, startEmbeddedPostgres } from '@us/db';
import { deriveUrls, loadEnvFile, parseEnv } from '../src/core/env.ts';
import { seedDemo } from './seed/demo.ts';
import { formatDuration, progressReporter } from './seed/progress.ts';

const { values: args } = parseArgs({
  options: {
    days: { type: 'string' },
    pageviews: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    jobs: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log(`usage: npm run seed:demo -- [--days 180] [--pageviews 1000000] [--email demo@example.com] [--password …] [--jobs 2]
Creates (or reuses) a demo user, workspace and site "Demo shop" (demo.example) and fills it with generated
traffic: days within 90 days of today as raw rows, older days as daily rollups.`);
  process.exit(0);
}

function positive(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v.replaceAll('_', ''));
  if (!Number.isFinite(n) || n < 1) {
    console.error(`--${name} must be a number of 1 or more (got ${v})`);
    process.exit(2);
  }
  return Math.floor(n);
}

// The server's `.env` (DATABASE_URL, DATA_DIR, and SEED_* too), as the server reads it.
loadEnvFile();
const days = positive('days', args.days ?? process.env.SEED_DAYS, 180);
const pageviews = positive('pageviews', args.pageviews ?? process.env.SEED_PAGEVIEWS, 1_000_000);
const jobs = positive('jobs', args.jobs ?? process.env.SEED_JOBS, 2);
const email = args.email ?? process.env.SEED_EMAIL ?? 'demo@example.com';
const password = args.password ?? process.env.SEED_PASSWORD ?? 'demo-shop-password';

const env = parseEnv();
let embedded: EmbeddedDatabase | undefined;
let databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  console.error(`› starting the embedded PostgreSQL in ${env.DATA_DIR}/postgres`);
  // Refused, with who holds it, while a server (npm start) runs on the same folder.
  embedded = await startEmbeddedPostgres({ dataDir: env.DATA_DIR }).catch((e: unknown) => {
    if (!(e instanceof EmbeddedPostgresUnavailable)) throw e;
    console.error(e.message);
    process.exit(1);
  });
  databaseUrl = embedded.url;
}

const orm = await createOrm(databaseUrl, { poolMax: jobs + 2 });
try {
  await migrate(orm);
  console.error(`› generating ${pageviews.toLocaleString('en')} pageviews over ${days} days for "Demo shop"`);
  const progress = progressReporter('seed');
  const { account, site, publicKey, created, timezone, result } = await seedDemo(orm, {
    email,
    password,
    days,
    pageviews,
    jobs,
    onReplacing: (removed) =>
      console.error(`› replacing the earlier demo traffic (${removed.toLocaleString('en')} rows removed)`),
    onProgress: (p) => progress.update(p),
  });
  progress.end();

  const urls = deriveUrls(env, { host: env.HOST, port: env.PORT });
  const r = result.rows;
  const total = r.pageviews + r.page_leaves + r.events + r.requests + r.daily_rollups;
  console.log(`
Demo data ready in ${formatDuration(result.ms)} (${Math.round((total * 1000) / result.ms).toLocaleString('en')} rows/s)
  user       ${email} (${account.createdUser ? 'created' : 'existing; password reset'})
  password   ${password}
  workspace  ${account.workspace.name} (${account.createdWorkspace ? 'created' : 'existing'})
  site       Demo shop, ${site.id} (${created ? 'created' : 'existing; traffic replaced'}), time zone ${timezone}
  hostname   demo.example   public key ${publicKey}
  days       ${result.firstDay} … ${result.lastDay}: ${result.rawDays} as raw rows, ${result.rolledUpDays} as daily rollups
  rows       pageviews ${r.pageviews.toLocaleString('en')}, page_leaves ${r.page_leaves.toLocaleString('en')}, events ${r.events.toLocaleString('en')}, requests ${r.requests.toLocaleString('en')}, daily_rollups ${r.daily_rollups.toLocaleString('en')}
  database   ${env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${env.DATA_DIR}`}

Sign in: run \`npm start\`, open ${urls.app} and sign in as ${email} with the password above.`);
} finally {
  await orm.close();
  await embedded?.stop();
}
