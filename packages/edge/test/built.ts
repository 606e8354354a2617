// The published build of the SDK (dist/), made by `npm run build`; built here first when missing or older than
// what it is built from, so a test or the bench never measures or runs a stale one.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const EDGE_DIR = path.resolve(import.meta.dirname, '..');
export const EDGE_DIST = path.join(EDGE_DIR, 'dist');

/** What the build is made of (tsdown.config.ts bundles the siblings' sources in). */
const SOURCES = [
  'src',
  'tsdown.config.ts',
  'tsconfig.build.json',
  'package.json',
  '../protection/src',
  '../shared/src/bot-vocabulary.ts',
].map((p) => path.join(EDGE_DIR, p));

function newest(p: string): number {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(p).map((e) => newest(path.join(p, e))));
}

/** Makes sure dist/ is current; answers whether it had to build. */
export function ensureEdgeBuild(): { built: boolean } {
  const entry = path.join(EDGE_DIST, 'index.js');
  if (existsSync(entry) && statSync(entry).mtimeMs >= Math.max(...SOURCES.map(newest))) return { built: false };
  const tsdown = path.join(EDGE_DIR, '../../node_modules/tsdown/dist/run.mjs');
  const r = spawnSync(process.execPath, [tsdown], { cwd: EDGE_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('building the edge SDK failed (npm run build -w @unseen-stats/edge)');
  return { built: true };
}
