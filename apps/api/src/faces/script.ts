import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ALL_SCRIPT_FEATURES, type ScriptFeature } from '@us/shared';
import type { Context, Next } from 'koa';
import { SCRIPT_DIST } from '../core/built-files.ts';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { type ScriptBuild, scriptBuildFor, scriptManifest } from '../core/script-builds.ts';

/**
 * Cache lifetimes. `/script.js` (every part) is what snippets from before the per-site script use, so a new
 * release reaches every page within a day (and browsers revalidate with the ETag); `/script/<siteKey>.js` is
 * the site's own build, so a change of its parts (settings `scriptFeatures`) reaches pages within an hour;
 * `/script.<hash>.js` never changes and is cached for a year (pin it, e.g. with Subresource Integrity, if you
 * prefer updating by hand).
 */
const STABLE_CACHE = 'public, max-age=86400, stale-while-revalidate=604800';
const SITE_CACHE = 'public, max-age=3600, stale-while-revalidate=86400';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
const SITE_SCRIPT = /^\/script\/(pk_[a-z0-9]{26})\.js$/;

/** The parts of the site behind a public key; null: no such site; 'busy': this address looked up too many unknown keys. */
export type ScriptFeaturesOf = (siteKey: string, ctx: Context) => Promise<ScriptFeature[] | null | 'busy'>;

interface Loaded {
  build: ScriptBuild;
  etag: string;
  plain: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

/** The versioned file name of the build with every part (`script.<hash>.js`), or null before the script is built. */
export function versionedScriptName(distDir = SCRIPT_DIST): string | null {
  return scriptBuildFor(ALL_SCRIPT_FEATURES, distDir)?.versioned ?? null;
}

function load(distDir: string, build: ScriptBuild): Loaded {
  const plain = readFileSync(path.join(distDir, build.file));
  return {
    build,
    etag: `"${createHash('sha256').update(plain).digest('hex').slice(0, 16)}"`,
    plain,
    gzip: gzipSync(plain, { level: 9 }),
    brotli: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

const NOT_BUILT = new AppError(503, 'The page script is not built yet: run `npm run build`');
const NO_SITE = new AppError(
  404,
  "No site has this public key: take the snippet from the site's page in the dashboard (or GET /v1/sites/{id}/snippet)",
);
const BUSY = new AppError(429, 'Too many unknown site keys from this address: try again in a minute', { retryAfter: 60 });

/**
 * Serves the page script: `/script.js` (every part), `/script/<siteKey>.js` (the build with the parts the
 * site's settings name) and any build's `/script.<hash>.js`; each compressed once, on first use (brotli or
 * gzip by Accept-Encoding), readable cross-origin.
 */
export function scriptHandler(featuresOf: ScriptFeaturesOf, distDir = SCRIPT_DIST) {
  const loaded = new Map<string, Loaded>();
  const loadedBuild = (build: ScriptBuild) => {
    const hit = loaded.get(build.name) ?? load(distDir, build);
    loaded.set(build.name, hit);
    return hit;
  };
  const byVersioned = (p: string) =>
    Object.values(scriptManifest(distDir)?.builds ?? {}).find((b) => p === `/${b.versioned}`) ?? null;

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const p = ctx.path;
    const siteKey = SITE_SCRIPT.exec(p)?.[1];
    let build: ScriptBuild | null;
    let cache: string;
    if (p === '/script.js') {
      build = scriptBuildFor(ALL_SCRIPT_FEATURES, distDir);
      cache = STABLE_CACHE;
    } else if (siteKey) {
      const features = await featuresOf(siteKey, ctx);
      if (features === null) return sendProblem(ctx, NO_SITE);
      if (features === 'busy') return sendProblem(ctx, BUSY);
      build = scriptBuildFor(features, distDir);
      cache = SITE_CACHE;
    } else {
      build = byVersioned(p);
      if (!build) return next();
      cache = VERSIONED_CACHE;
    }
    if (!build) return sendProblem(ctx, NOT_BUILT);
    const served = loadedBuild(build);
    ctx.set('Cache-Control', cache);
    ctx.set('ETag', served.etag);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = 'text/javascript; charset=utf-8';
    if (ctx.get('if-none-match') === served.etag) {
      ctx.status = 304;
      return;
    }
    const accepts = ctx.get('accept-encoding');
    if (/\bbr\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'br');
      ctx.body = served.brotli;
    } else if (/\bgzip\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = served.gzip;
    } else {
      ctx.body = served.plain;
    }
  };
}
