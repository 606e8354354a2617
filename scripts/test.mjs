// `npm test`: lint, layers, typecheck, build (the browser tests load the built dashboard), then every test,
// then the Citus lane where Citus is installed (always in CI).
// Extra arguments go to vitest (e.g. `npm test -- auth`). Ends with a plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { runCitusLane } from './citus/lane.mjs';

const args = process.argv.slice(2);
const step = (title, cmd, cmdArgs) => {
  console.log(`\n› ${title}`);
  const r = spawnSync(cmd, cmdArgs, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`✗ ${title} failed`);
    process.exit(r.status ?? 1);
  }
};

if (!process.env.SKIP_CHECKS) {
  step('lint (biome)', 'biome', ['check', '.']);
  const sources = ['apps', 'packages'].flatMap((dir) =>
    readdirSync(dir)
      .map((name) => `${dir}/${name}/src`)
      .filter((src) => existsSync(src)),
  );
  step(
    'layers and declared packages (dependency-cruiser: no import climbs a floor, wings meet through index.ts, each workspace imports only what its package.json declares)',
    'depcruise',
    [...sources, '--config', '.dependency-cruiser.cjs'],
  );
  step('typecheck', 'turbo', ['run', 'typecheck', '--output-logs=errors-only']);
  step('build', 'turbo', ['run', 'build', '--output-logs=errors-only']);
}

mkdirSync('.tmp', { recursive: true });
for (const report of ['.tmp/vitest.json', '.tmp/vitest-citus.json']) rmSync(report, { force: true });
console.log('\n› tests (vitest)');
const r = spawnSync('vitest', ['run', '--reporter=default', '--reporter=json', '--outputFile.json=.tmp/vitest.json', ...args], {
  stdio: 'inherit',
});
// The names of failed tests, printed again at the very end: a CI log's tail is often all one gets to read.
const failedTitles = [];
const collectFailed = (reportPath, lane) => {
  try {
    const report = JSON.parse(readFileSync(reportPath, 'utf8'));
    for (const file of report.testResults ?? []) {
      const failures = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      const name = file.name.replace(`${process.cwd()}/`, '');
      for (const t of failures) failedTitles.push(`${lane}${name} > ${t.fullName}`);
      if (failures.length === 0 && file.status === 'failed')
        failedTitles.push(`${lane}${name}: ${file.message || 'did not run'}`);
    }
  } catch {}
};
collectFailed('.tmp/vitest.json', '');
let main;
try {
  const report = JSON.parse(readFileSync('.tmp/vitest.json', 'utf8'));
  const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
  // Judge by the report too: the exit status alone has let failures through before.
  const ok = r.status === 0 && !(report.numTotalTests === 0 || report.numFailedTests > 0 || report.success === false);
  main = { passed: report.numPassedTests, failed: report.numFailedTests, skipped, ok };
} catch {
  main = { passed: 0, failed: 1, skipped: 0, ok: false };
}
console.log(`\ntests: ${main.passed} passed, ${main.failed} failed, ${main.skipped} skipped${main.ok ? '' : ' (not ok)'}`);

// The Citus lane (scripts/citus/lane.mjs): in CI always (.ci/run installs Citus), elsewhere where Citus is
// installed; not when arguments chose some tests, nor with SKIP_CITUS.
const pgConfig = '/usr/lib/postgresql/15/bin/pg_config';
const citusHere =
  existsSync(pgConfig) &&
  readdirSync(spawnSync(pgConfig, ['--pkglibdir'], { encoding: 'utf8' }).stdout.trim()).some((f) =>
    /^citus-.*\.installed$/.test(f),
  );
if (args.length === 0 && !process.env.SKIP_CITUS && (process.env.CI || citusHere)) {
  console.log('\n› Citus lane (vitest, TEST_DATABASE=citus)');
  let lane;
  try {
    lane = runCitusLane();
  } catch (err) {
    lane = { passed: 0, failed: 1, skipped: 0, ok: false };
    console.error(`✗ ${err.message}`);
  }
  const named = failedTitles.length;
  collectFailed('.tmp/vitest-citus.json', '[citus] ');
  if (!lane.ok && failedTitles.length === named)
    failedTitles.push('[citus] the lane did not run its tests: its output above says why');
  console.log(`\nCitus lane: ${lane.passed} passed, ${lane.failed} failed, ${lane.skipped} skipped`);
  main = {
    passed: main.passed + lane.passed,
    failed: main.failed + lane.failed,
    skipped: main.skipped + lane.skipped,
    ok: main.ok && lane.ok,
  };
  console.log(`\ntests: ${main.passed} passed, ${main.failed} failed, ${main.skipped} skipped`);
} else if (args.length === 0) {
  console.warn('⚠ Citus is not installed here: the Citus lane was skipped (npm run test:citus builds and runs it)');
}
if (failedTitles.length > 0) console.log(`\nfailed:\n${failedTitles.map((t) => `  ✗ ${t}`).join('\n')}`);
process.exit(main.ok ? 0 : 1);
