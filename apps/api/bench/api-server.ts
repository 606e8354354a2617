// The real service (embedded PostgreSQL in the bench DATA_DIR, default .data/bench, kept between runs;
// in-process hot state) plus a signed-up user, an API token and a site for collect reports, announced
// on stdout for the benchmark driver together with the database URL.
import path from 'node:path';
import { scopesOfRole } from '@us/shared';
import { start } from '../src/boot.ts';
import { parseEnv } from '../src/env.ts';
import { runRollups } from '../src/jobs/index.ts';
import { ensureAccount, ensureSite } from '../src/seed/accounts.ts';
import { issueToken } from '../src/services/tokens.ts';

export interface ApiInfo {
  url: string;
  token: string;
  dbUrl: string;
  workspaceId: string;
  collect: { siteId: string; publicKey: string; hostname: string };
}

const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.data/bench');
const running = await start(
  parseEnv({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', NODE_ENV: 'production', MCP_CALLS_PER_MINUTE: '100000000' }),
);
// Let the start-up rollup run (complete days of earlier bench data not rolled up yet) finish before
// anything is measured, so it does not run beside the benchmarks.
const rollupStart = Date.now();
for (;;) {
  const run = await runRollups(running.deps.orm).catch(() => null);
  if (!run || (run.ran && !run.more)) break;
  await new Promise((r) => setTimeout(r, 500));
}
if (Date.now() - rollupStart > 2000) {
  process.stderr.write(`  (waited ${((Date.now() - rollupStart) / 1000).toFixed(1)} s for the rollup job to catch up)\n`);
}
const em = running.deps.orm.em.fork();
const { user, workspace } = await ensureAccount(em, {
  email: 'bench@example.test',
  password: 'bench-password-123',
  workspaceName: 'Bench',
});
const hostname = 'collect.bench.example';
const site = await ensureSite(em, { workspaceId: workspace.id, name: 'Collect bench', hostname, timezone: 'UTC' });
const { secret } = await issueToken(em, {
  workspaceId: workspace.id,
  createdBy: user.id,
  name: 'bench',
  scopes: scopesOfRole('owner'),
});
const info: ApiInfo = {
  url: running.url,
  token: secret,
  dbUrl: String(running.deps.orm.config.get('clientUrl')),
  workspaceId: workspace.id,
  collect: { siteId: site.site.id, publicKey: site.publicKey, hostname },
};
process.stdout.write(`${JSON.stringify(info)}\n`);
process.on('SIGTERM', async () => {
  await running.close();
  process.exit(0);
});
