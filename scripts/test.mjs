// `npm test`: lint, layers, typecheck, build (the browser tests load the built dashboard), then every test.
// Extra arguments go to vitest (e.g. `npm test -- auth`). Ends with a plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';

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
console.log('\n› tests (vitest)');
const r = spawnSync('vitest', ['run', '--reporter=default', '--reporter=json', '--outputFile.json=.tmp/vitest.json', ...args], {
  stdio: 'inherit',
});
try {
  const report = JSON.parse(readFileSync('.tmp/vitest.json', 'utf8'));
  const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
  console.log(`\ntests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
  // Judge by the report too: the exit status alone has let failures through before.
  if (report.numTotalTests === 0 || report.numFailedTests > 0 || report.success === false) process.exit(1);
} catch {
  console.log('\ntests: 0 passed, 1 failed (no report was written)');
  process.exit(1);
}
process.exit(r.status ?? 1);
