// Builds the page script into dist/script.js (+ a content-hashed copy and manifest.json), prints its raw,
// gzip and brotli sizes on every build and fails when the code's gzip exceeds the budget. The file starts with
// a one-line licence comment (sites embed it, so it says it is MIT); the budget is the code's, without it.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const BUDGET_GZIP = 1536;
const LICENCE = '/*! Unseen Stats page script | MIT licence */';
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
  banner: { js: LICENCE },
  // The script is an IIFE whose code is strict-safe; the directive is bytes for nothing.
  tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
});
const code = readFileSync(path.join(dir, 'script.js'));
const gzip = gzipSync(code, { level: 9 }).length;
const codeGzip = gzipSync(code.subarray(Buffer.byteLength(`${LICENCE}\n`)), { level: 9 }).length;
const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const versioned = `script.${createHash('sha256').update(code).digest('hex').slice(0, 8)}.js`;
writeFileSync(path.join(dir, versioned), code);
writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify({ file: 'script.js', versioned, gzip, brotli }, null, 2)}\n`);
console.log(
  `script.js: ${code.length} B raw, gzip ${gzip} B, brotli ${brotli} B; the code without its licence line: gzip ${codeGzip} B (budget ≤ ${BUDGET_GZIP} B)`,
);
if (codeGzip > BUDGET_GZIP) {
  console.error(`script.js is over budget: the code's gzip ${codeGzip} B > ${BUDGET_GZIP} B`);
  process.exit(1);
}
