// Builds the page script once per set of parts a site can turn on (events, clicks, navigation: the esbuild
// `define`s of src/script.ts), into dist/builds/<name>.js (`core`, `events`, `events-clicks`, …), each with a
// content-hashed copy dist/script.<hash>.js; dist/script.js is the build with every part (what the stable
// /script.js serves). manifest.json lists them with their gzip and brotli sizes. Each build starts with a
// short licence comment (sites embed it, so it says it is MIT). The build fails when the core or the whole
// script as served (gzip, licence line included) or what a part adds to the core is over its budget.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Same list and order as SCRIPT_FEATURES in packages/shared/src/script-features.ts (a test compares them). */
const FEATURES = ['events', 'clicks', 'navigation'];
const DEFINES = { events: 'EVENTS', clicks: 'CLICKS', navigation: 'NAVIGATION' };
const BUDGET = { core: 1024, part: 192, all: 1536 };
const LICENCE = '/*! Unseen Stats | MIT */';
const dir = path.join(import.meta.dirname, 'dist');
rmSync(path.join(dir, 'builds'), { recursive: true, force: true });
mkdirSync(path.join(dir, 'builds'), { recursive: true });
for (const f of readdirSync(dir)) if (/^script\.[0-9a-f]{8}\.js$/.test(f)) rmSync(path.join(dir, f));

const gzipOf = (bytes) => gzipSync(bytes, { level: 9 }).length;
const nameOf = (features) => (features.length ? features.join('-') : 'core');

async function buildOne(features) {
  const define = { TAG_DATA: 'true' };
  for (const f of FEATURES) define[DEFINES[f]] = String(features.includes(f));
  const out = await build({
    entryPoints: [path.join(import.meta.dirname, 'src/script.ts')],
    write: false,
    bundle: true,
    minify: true,
    // The source is one IIFE already: `esm` adds no second wrapper (it has no import or export).
    format: 'esm',
    // es2019 for `catch {}` without a binding; every browser from 2018 on runs it.
    target: 'es2019',
    legalComments: 'none',
    define,
    // Strict-safe code; the directive is bytes for nothing.
    tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
  });
  const code = Buffer.from(out.outputFiles[0].contents);
  const file = Buffer.concat([Buffer.from(`${LICENCE}\n`), code]);
  const versioned = `script.${createHash('sha256').update(file).digest('hex').slice(0, 8)}.js`;
  const name = nameOf(features);
  writeFileSync(path.join(dir, 'builds', `${name}.js`), file);
  writeFileSync(path.join(dir, versioned), file);
  return {
    name,
    features,
    file: `builds/${name}.js`,
    versioned,
    gzip: gzipOf(file),
    brotli: brotliCompressSync(file, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    codeGzip: gzipOf(code),
  };
}

const sets = [];
for (let mask = 0; mask < 1 << FEATURES.length; mask++) sets.push(FEATURES.filter((_, i) => mask & (1 << i)));
const builds = {};
for (const features of sets) {
  const b = await buildOne(features);
  builds[b.name] = b;
}
const all = builds[nameOf(FEATURES)];
copyFileSync(path.join(dir, all.file), path.join(dir, 'script.js'));
const core = builds.core;
/** What each part adds to the core alone (gzip of the code). */
const partGzip = Object.fromEntries(FEATURES.map((f) => [f, builds[f].codeGzip - core.codeGzip]));
writeFileSync(
  path.join(dir, 'manifest.json'),
  `${JSON.stringify({ file: 'script.js', versioned: all.versioned, gzip: all.gzip, brotli: all.brotli, budgets: BUDGET, partGzip, builds }, null, 2)}\n`,
);

const over = [];
if (core.gzip > BUDGET.core) over.push(`the core is ${core.gzip} B gzip > ${BUDGET.core} B`);
for (const [f, bytes] of Object.entries(partGzip))
  if (bytes > BUDGET.part) over.push(`${f} adds ${bytes} B gzip > ${BUDGET.part} B`);
if (all.gzip > BUDGET.all) over.push(`every part together is ${all.gzip} B gzip > ${BUDGET.all} B`);
console.log(
  `page script as served, gzip: core ${core.gzip} B (budget ${BUDGET.core} B, brotli ${core.brotli} B); ` +
    `${FEATURES.map((f) => `${f} +${partGzip[f]} B`).join(', ')} (budget ${BUDGET.part} B each); ` +
    `every part ${all.gzip} B (budget ${BUDGET.all} B, brotli ${all.brotli} B); ${sets.length} builds`,
);
if (over.length) {
  console.error(`The page script is over budget: ${over.join('; ')}`);
  process.exit(1);
}
