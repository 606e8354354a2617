import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ALL_SCRIPT_FEATURES, type ScriptFeature, scriptBuildName } from '@us/shared';
import { SCRIPT_DIST } from './built-files.ts';

/** One build of the page script (apps/script/build.mjs): the parts it has, its files and sizes. */
export interface ScriptBuild {
  name: string;
  features: ScriptFeature[];
  /** Its file under the dist folder (`builds/<name>.js`) and its content-hashed copy (`script.<hash>.js`). */
  file: string;
  versioned: string;
  gzip: number;
  brotli: number;
  /** The code's gzip without the licence line: what a part adds is counted on it. */
  codeGzip: number;
}

/** apps/script/dist/manifest.json. */
export interface ScriptManifest {
  builds: Record<string, ScriptBuild>;
  /** What each part adds to the core, gzip of the code. */
  partGzip: Record<ScriptFeature, number>;
}

const read = new Map<string, ScriptManifest>();

/** The page script's manifest, or null before the script is built (read again on the next call then). */
export function scriptManifest(distDir = SCRIPT_DIST): ScriptManifest | null {
  const known = read.get(distDir);
  if (known) return known;
  const file = path.join(distDir, 'manifest.json');
  if (!existsSync(file)) return null;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as ScriptManifest;
  read.set(distDir, manifest);
  return manifest;
}

/** The parts a site's settings name; a site whose settings never named any gets every part, as it always did. */
export function scriptFeaturesOf(settings: Record<string, unknown> | null | undefined): ScriptFeature[] {
  const named = settings?.scriptFeatures;
  if (!Array.isArray(named)) return [...ALL_SCRIPT_FEATURES];
  return ALL_SCRIPT_FEATURES.filter((f) => named.includes(f));
}

/** The build with these parts, or null before the script is built. */
export function scriptBuildFor(features: readonly ScriptFeature[], distDir = SCRIPT_DIST): ScriptBuild | null {
  return scriptManifest(distDir)?.builds[scriptBuildName(features)] ?? null;
}
