import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { AppError } from '../errors.ts';
import { sendProblem } from './problem-response.ts';
import { type FrameAncestors, setPageSecurityHeaders } from './security-headers.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The 404 problem of an address nothing answers (any method): never Koa's plain-text one. */
export function notServed(ctx: Context) {
  sendProblem(ctx, new AppError(404, `Nothing is served at ${ctx.method} ${ctx.path.slice(0, 200)}: check the address`));
}

export interface SpaOptions {
  /** Whether the answer goes out over https (then with HSTS): `servedOverHttps` with APP_URL. Default no. */
  https?: (ctx: Context) => boolean;
  /** Who may frame this page (index.html for the address asked): a shared view whose owner allows it. Default nobody. */
  frameAncestors?: (ctx: Context) => Promise<FrameAncestors>;
}

/**
 * Serves the built dashboard. Hashed assets are cached for a year; any other GET that is not an API
 * path gets index.html, so the SPA's own routes (/verify, /reset-password, ...) work on reload. A malformed
 * %-escape is 400 and a path with a dot segment (`/.well-known/…`, `/..%2f…`) 404, both problem+json.
 * Pages and assets carry the security headers (`security-headers.ts`): the dashboard runs with no inline
 * script, no eval and no inline style.
 */
export function spaStatic(distDir: string, opts: SpaOptions = {}) {
  const root = path.resolve(distDir);
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const index = path.join(root, 'index.html');
    if (!existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The dashboard is not built yet: run `npm run build`, then reload.';
      return;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(ctx.path);
    } catch {
      return sendProblem(ctx, new AppError(400, 'The address has a malformed %-escape: check the link'));
    }
    // Dot segments name nothing of the dashboard: `/.well-known/*` (ACME, security.txt, app links…) is not
    // the SPA's, and `..` never leaves its folder.
    if (decoded.split(/[/\\]/).some((segment) => segment.startsWith('.'))) return notServed(ctx);
    const wanted = path.resolve(root, `.${decoded}`);
    const inside = wanted === root || wanted.startsWith(`${root}${path.sep}`);
    const file = inside && existsSync(wanted) && statSync(wanted).isFile() ? wanted : index;
    const page = file === index;
    const frameAncestors = page && opts.frameAncestors ? await opts.frameAncestors(ctx) : 'none';
    setPageSecurityHeaders(ctx, { https: opts.https?.(ctx) ?? false, frameAncestors });
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.body = createReadStream(file);
  };
}
