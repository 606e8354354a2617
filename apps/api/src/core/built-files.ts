import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The API package's folder (apps/api): the nearest folder above this module holding a package.json. The
 * source runs from apps/api/src/core and the production build from apps/api/dist (apps/api/build.mjs bundles
 * every module into dist/main.js), so the other apps' built files are found from here, not from each
 * module's own folder.
 */
export function packageDirAbove(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${from} or above`);
  }
}

const API_DIR = packageDirAbove(import.meta.dirname);

/** The dashboard's build (`vite build` in apps/web). */
export const WEB_DIST = path.resolve(API_DIR, '../web/dist');
/** The page script's build (apps/script/build.mjs). */
export const SCRIPT_DIST = path.resolve(API_DIR, '../script/dist');
/** Scalar's browser bundle for GET /v1/docs, copied by apps/api/build.mjs (a production install lacks the package). */
export const API_REFERENCE_DIST = path.resolve(API_DIR, 'dist/api-reference');
