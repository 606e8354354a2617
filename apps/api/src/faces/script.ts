import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context, Next } from 'koa';
import { SCRIPT_DIST } from '../core/built-files.ts';

/**
 * Cache lifetimes. The stable `/script.js` is what the snippet uses, so a new release reaches every
 * page within a day (and browsers revalidate with the ETag); `/script.<hash>.js` never changes and is
 * cached for a year (pin it, e.g. with Subresource Integrity, if you prefer updating by hand).
 */
const STABLE_CACHE = 'public, max-age=86400, stale-while-revalidate=604800';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

interface Built {
  versioned: string;
  etag: string;
  plain: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

function load(distDir: string): Built | null {
  const file = path.join(distDir, 'script.js');
  const manifest = path.join(distDir, 'manifest.json');
  if (!existsSync(file) || !existsSync(manifest)) return null;
  const plain = readFileSync(file);
  const { versioned } = JSON.parse(readFileSync(manifest, 'utf8')) as { versioned: string };
  return {
    versioned,
    etag: `"${createHash('sha256').update(plain).digest('hex').slice(0, 16)}"`,
    plain,
    gzip: gzipSync(plain, { level: 9 }),
    brotli: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

/** The versioned file name of the current build (`script.<hash>.js`), or null before the script is built. */
export function versionedScriptName(distDir = SCRIPT_DIST): string | null {
  const manifest = path.join(distDir, 'manifest.json');
  if (!existsSync(manifest)) return null;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { versioned: string }).versioned;
}

/**
 * Serves the page script at `/script.js` and `/script.<hash>.js`, compressed once at start-up
 * (brotli or gzip by Accept-Encoding), readable cross-origin.
 */
export function scriptHandler(distDir = SCRIPT_DIST) {
  let built: Built | null = null;
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    built ??= load(distDir);
    const stable = ctx.path === '/script.js';
    if (!stable && ctx.path !== `/${built?.versioned}`) return next();
    if (!built) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The page script is not built yet: run `npm run build`.';
      return;
    }
    ctx.set('Cache-Control', stable ? STABLE_CACHE : VERSIONED_CACHE);
    ctx.set('ETag', built.etag);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = 'text/javascript; charset=utf-8';
    if (ctx.get('if-none-match') === built.etag) {
      ctx.status = 304;
      return;
    }
    const accepts = ctx.get('accept-encoding');
    if (/\bbr\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'br');
      ctx.body = built.brotli;
    } else if (/\bgzip\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = built.gzip;
    } else {
      ctx.body = built.plain;
    }
  };
}
