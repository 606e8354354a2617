// The Citus lane: the suites that touch analytics data, run against a local Citus coordinator and two workers
// (TEST_DATABASE=citus; apps/api/test/support/test-database.ts starts the cluster). `npm run test:citus` runs
// it alone; `npm test` runs it after the main run wherever Citus is installed, and CI installs it (.ci/run).
// One test file at a time: making a day partition of a distributed table takes locks on every worker, and two
// files doing so at once on two small nodes mostly wait for each other past the partition lock's patience.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

/** Ingest (with faults), rollups (incremental, late rows), raw/rollup equality, results, journeys, export,
 * retention, site deletion, two API nodes, funnels and segments applied to stats, history imports (their
 * figures on distributed tables, written beside the plain imports table); e-mail reports, alerts,
 * search and shared links. */
export const CITUS_LANE = [
  'apps/api/test/analytics',
  'apps/api/test/features/stats',
  'apps/api/test/features/results',
  'apps/api/test/features/journeys',
  'apps/api/test/features/funnels',
  'apps/api/test/features/segments',
  'apps/api/test/features/export',
  'apps/api/test/features/imports',
  'apps/api/test/features/changes',
  'apps/api/test/features/sites/sites-crud.http.test.ts',
  'apps/api/test/features/sites/sites-delete-edge.http.test.ts',
  'apps/api/test/fault/two-nodes.http.test.ts',
  'apps/api/test/fault/fault-citus.http.test.ts',
  // Control-plane suites whose statements once differed under Citus (upserts, an insert's returning list).
  'apps/api/test/features/reports',
  'apps/api/test/features/alerts',
  'apps/api/test/features/search',
  'apps/api/test/features/shares',
];

/** Builds Citus when missing, runs the lane, and answers its report's counts (or throws). */
export function runCitusLane(extraArgs = []) {
  const build = spawnSync('bash', ['scripts/citus/build.sh'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('Citus could not be built or installed (scripts/citus/build.sh)');
  mkdirSync('.tmp', { recursive: true });
  const report = '.tmp/vitest-citus.json';
  spawnSync(
    'vitest',
    [
      'run',
      '--project',
      'service',
      '--project',
      'http',
      '--maxWorkers=1',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...CITUS_LANE,
      ...extraArgs,
    ],
    { stdio: 'inherit', env: { ...process.env, TEST_DATABASE: 'citus' } },
  );
  const r = JSON.parse(readFileSync(report, 'utf8'));
  return {
    passed: r.numPassedTests,
    failed: r.numFailedTests,
    skipped: r.numPendingTests + (r.numTodoTests ?? 0),
    ok: r.success === true && r.numTotalTests > 0 && r.numFailedTests === 0,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('\n› Citus lane (vitest, TEST_DATABASE=citus)');
  try {
    const r = runCitusLane(process.argv.slice(2));
    console.log(`\nCitus lane: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
    process.exit(r.ok ? 0 : 1);
  } catch (err) {
    console.log(`\nCitus lane: 0 passed, 1 failed (${err.message})`);
    process.exit(1);
  }
}
