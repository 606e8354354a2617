// The page script's size as served: built once when dist/ is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const scriptDir = path.resolve(import.meta.dirname, '../../script');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export function scriptSizes(): { raw: number; gzip: number; brotli: number; built: boolean } {
  const file = path.join(scriptDir, 'dist', 'script.js');
  const stale =
    !existsSync(file) ||
    statSync(file).mtimeMs <
      Math.max(newestSource(path.join(scriptDir, 'src')), statSync(path.join(scriptDir, 'build.mjs')).mtimeMs);
  if (stale) {
    const r = spawnSync(process.execPath, [path.join(scriptDir, 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error('building the page script failed (node apps/script/build.mjs)');
  }
  const code = readFileSync(file);
  return {
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    built: stale,
  };
}

export function formatScriptSizes(s: ReturnType<typeof scriptSizes>): string {
  return `${'page script (dist/script.js)'.padEnd(34)} ${String(s.gzip).padStart(7)} B gzip   ${String(s.brotli).padStart(6)} B brotli   ${s.raw} B raw${s.built ? '   (built now)' : ''}`;
}
