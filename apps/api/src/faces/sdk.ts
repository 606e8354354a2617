import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context, Next } from 'koa';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';

/** The edge SDK's package folder (package.json, dist/), found the way Node finds the package. */
export function edgePackageDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('@unseen-stats/edge/package.json'));
}

/** A versioned URL's files never change: a year, immutable. */
const CACHE = 'public, max-age=31536000, immutable';
const FILE = /^\/sdk\/edge@([^/]+)\/([A-Za-z0-9_-]+(?:\.d\.ts|\.js))$/;

interface SdkFile {
  type: string;
  etag: string;
  plain: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  /** For Deno: where the declarations of an entry file are. */
  types?: string;
}

interface Sdk {
  /** Null when the package is not installed beside the service. */
  version: string | null;
  /** Null before `npm run build` made dist/. */
  files: Map<string, SdkFile> | null;
}

function load(dir: string | undefined): Sdk {
  try {
    dir ??= edgePackageDir();
  } catch {
    return { version: null, files: null };
  }
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const dist = path.join(dir, 'dist');
  if (!existsSync(path.join(dist, 'index.js'))) return { version, files: null };
  const names = readdirSync(dist).filter((n) => FILE.test(`/sdk/edge@${version}/${n}`));
  const files = new Map<string, SdkFile>();
  for (const name of names) {
    const plain = readFileSync(path.join(dist, name));
    const declarations = name.replace(/\.js$/, '.d.ts');
    files.set(name, {
      type: name.endsWith('.d.ts') ? 'application/typescript; charset=utf-8' : 'text/javascript; charset=utf-8',
      etag: `"${createHash('sha256').update(plain).digest('hex').slice(0, 16)}"`,
      plain,
      gzip: gzipSync(plain, { level: 9 }),
      brotli: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      types: name.endsWith('.js') && names.includes(declarations) ? `./${declarations}` : undefined,
    });
  }
  return { version, files };
}

/**
 * Serves the edge SDK's built files at `/sdk/edge@<version>/<file>` (`index.js`, `node.js`, `protect.js`, their
 * chunks and `.d.ts`), the version being the one this service ships: cached for a year, readable cross-origin,
 * compressed once (brotli or gzip by Accept-Encoding). Another version, or a file the build does not have: 404.
 */
export function sdkHandler(dir?: string) {
  let sdk: Sdk | null = null;
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    sdk ??= load(dir);
    const match = FILE.exec(ctx.path);
    if (!sdk.version)
      return sendProblem(ctx, new AppError(404, 'This server does not serve the edge SDK: install @unseen-stats/edge from npm'));
    if (!match || match[1] !== sdk.version) {
      return sendProblem(
        ctx,
        new AppError(
          404,
          `No such edge SDK file: this service serves @unseen-stats/edge ${sdk.version} at /sdk/edge@${sdk.version}/index.js`,
        ),
      );
    }
    if (!sdk.files) {
      return sendProblem(ctx, new AppError(503, 'The edge SDK is not built yet: run `npm run build`.'));
    }
    const file = sdk.files.get(match[2] as string);
    if (!file) {
      return sendProblem(ctx, new AppError(404, `No such file in @unseen-stats/edge ${sdk.version}: start from index.js`));
    }
    ctx.set('Cache-Control', CACHE);
    ctx.set('ETag', file.etag);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Vary', 'Accept-Encoding');
    if (file.types) ctx.set('X-TypeScript-Types', file.types);
    ctx.type = file.type;
    if (ctx.get('if-none-match') === file.etag) {
      ctx.status = 304;
      return;
    }
    const accepts = ctx.get('accept-encoding');
    if (/\bbr\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'br');
      ctx.body = file.brotli;
    } else if (/\bgzip\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzip;
    } else {
      ctx.body = file.plain;
    }
  };
}
