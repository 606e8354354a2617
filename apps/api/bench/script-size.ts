// The sizes of what customers embed, as served: the page script and the edge SDK, each built first when its
// dist/ is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { EDGE_DIST, ensureEdgeBuild } from '../../../packages/edge/test/built.ts';

const scriptDir = path.resolve(import.meta.dirname, '../../script');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** One build of the page script as served: its parts, gzip and brotli (licence line included). */
interface BuildSize {
  name: string;
  gzip: number;
  brotli: number;
  raw: number;
}

/** Every build of the page script (one per set of parts; apps/script/build.mjs), the core first. */
export function scriptSizes(): { builds: BuildSize[]; built: boolean } {
  const file = path.join(scriptDir, 'dist', 'manifest.json');
  const stale =
    !existsSync(file) ||
    statSync(file).mtimeMs <
      Math.max(newestSource(path.join(scriptDir, 'src')), statSync(path.join(scriptDir, 'build.mjs')).mtimeMs);
  if (stale) {
    const r = spawnSync(process.execPath, [path.join(scriptDir, 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error('building the page script failed (node apps/script/build.mjs)');
  }
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { builds: Record<string, { name: string; file: string }> };
  const builds = Object.values(manifest.builds).map(({ name, file: built }) => {
    const code = readFileSync(path.join(scriptDir, 'dist', built));
    return {
      name,
      raw: code.length,
      gzip: gzipSync(code, { level: 9 }).length,
      brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
  builds.sort((a, b) => a.gzip - b.gzip);
  return { builds, built: stale };
}

/** One line per build, each with its share of the build with every part (what `/script.js` serves). */
export function formatScriptSizes(s: ReturnType<typeof scriptSizes>): string {
  const all = s.builds.at(-1)?.gzip ?? 1;
  return s.builds
    .map(
      (b) =>
        `${`page script: ${b.name}`.padEnd(40)} ${String(b.gzip).padStart(7)} B gzip   ${String(b.brotli).padStart(6)} B brotli   ${b.raw} B raw   ${((b.gzip * 100) / all).toFixed(1)}% of every part${s.built ? '   (built now)' : ''}`,
    )
    .join('\n');
}

/** A built entry and the chunks it imports, as a runtime loads them (each file on its own, as they are served). */
function entryFiles(entry: string, seen = new Set<string>()): string[] {
  if (seen.has(entry)) return [];
  seen.add(entry);
  const code = readFileSync(path.join(EDGE_DIST, entry), 'utf8');
  const chunks = [...code.matchAll(/from\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1] as string);
  return [entry, ...chunks.flatMap((c) => entryFiles(c, seen))];
}

export interface EdgeSize {
  entry: string;
  files: number;
  raw: number;
  /** Each file compressed on its own, summed: what a runtime downloads from `/sdk/edge@<version>/`. */
  gzip: number;
  brotli: number;
}

/** The edge SDK's entries as built for npm and `/sdk/edge@<version>/`: the Workers one and the Node one. */
export function edgeSdkSizes(): { built: boolean; entries: EdgeSize[] } {
  const { built } = ensureEdgeBuild();
  const entries = ['index.js', 'node.js'].map((entry) => {
    const size: EdgeSize = { entry, files: 0, raw: 0, gzip: 0, brotli: 0 };
    for (const file of entryFiles(entry)) {
      const code = readFileSync(path.join(EDGE_DIST, file));
      size.files += 1;
      size.raw += code.length;
      size.gzip += gzipSync(code, { level: 9 }).length;
      size.brotli += brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    }
    return size;
  });
  return { built, entries };
}

export function formatEdgeSdkSizes(s: ReturnType<typeof edgeSdkSizes>): string {
  const label = { 'index.js': 'edge SDK, Workers (index.js)', 'node.js': 'edge SDK, Node (node.js)' } as Record<string, string>;
  return s.entries
    .map(
      (e) =>
        `${(label[e.entry] ?? e.entry).padEnd(34)} ${String(e.gzip).padStart(7)} B gzip   ${String(e.brotli).padStart(6)} B brotli   ${e.raw} B raw, ${e.files} files${s.built ? '   (built now)' : ''}`,
    )
    .join('\n');
}
