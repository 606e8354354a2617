// Builds the page script into dist/script.js and prints its gzip and brotli sizes.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/script.ts'],
  outfile: 'dist/script.js',
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2019',
});
const code = readFileSync('dist/script.js');
console.log(`script.js: ${code.length} B, gzip ${gzipSync(code).length} B, brotli ${brotliCompressSync(code).length} B`);
