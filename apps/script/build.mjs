// Builds the page script into dist/script.js (+ a content-hashed copy and manifest.json), prints its raw,
// gzip and brotli sizes on every build and fails when gzip exceeds the budget.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const BUDGET_GZIP = 1536;
const dir = path.join(import.meta.dirname, 'dist');
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) if (/^script\.[0-9a-f]{8}\.js$/.test(f)) rmSync(path.join(dir, f));

await build({
  entryPoints: [path.join(import.meta.dirname, 'src/script.ts')],
  outfile: path.join(dir, 'script.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2017',
  legalComments: 'none',
  // The script is an IIFE whose code is strict-safe; the directive is bytes for nothing.
  tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
});
const code = readFileSync(path.join(dir, 'script.js'));
const gzip = gzipSync(code, { level: 9 }).length;
const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const versioned = `script.${createHash('sha256').update(code).digest('hex').slice(0, 8)}.js`;
writeFileSync(path.join(dir, versioned), code);
writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify({ file: 'script.js', versioned, gzip, brotli }, null, 2)}\n`);
console.log(`script.js: ${code.length} B raw, gzip ${gzip} B, brotli ${brotli} B (budget: gzip ≤ ${BUDGET_GZIP} B)`);
if (gzip > BUDGET_GZIP) {
  console.error(`script.js is over budget: gzip ${gzip} B > ${BUDGET_GZIP} B`);
  process.exit(1);
}
