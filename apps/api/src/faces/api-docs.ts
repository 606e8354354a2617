import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'koa';
import { API_REFERENCE_DIST } from '../core/built-files.ts';
import type { Deps } from '../core/deps.ts';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { servedOverHttps, setPageSecurityHeaders } from '../core/http/security-headers.ts';

export const API_DOCS_PATH = '/v1/docs';
export const API_DOCS_ASSETS = '/v1/docs/assets/';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Run before the reference's bundle: zod (inside it) probes `new Function` once to decide whether to
 * compile its parsers, and under a CSP without 'unsafe-eval' that probe is a reported violation. zod
 * reads this global setting first and then never tries.
 */
const SETUP_JS = `// Tells zod (inside the API reference) not to probe eval: the page's CSP forbids it.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
`;

/**
 * Scalar's options: nothing fetched from elsewhere (fonts, telemetry), no hosted extras (its AI agent,
 * developer toolbar). The request client stays: it calls this service, which the CSP allows.
 */
const SCALAR_CONFIG = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  hideClientButton: false,
};

interface Asset {
  name: string;
  file?: string;
  text?: string;
  gzipped?: Promise<Buffer>;
}

/**
 * Scalar's standalone bundle (`@scalar/api-reference`, MIT), or null when it is missing: the installed package
 * where it is installed (a checkout), otherwise the copy the production build put beside its bundle.
 */
function findScalar(): Asset | null {
  return installedScalar() ?? builtScalar();
}

function installedScalar(): Asset | null {
  try {
    const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
    let root = path.dirname(entry);
    while (!existsSync(path.join(root, 'package.json')) && path.dirname(root) !== root) root = path.dirname(root);
    const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const file = path.join(root, 'dist', 'browser', 'standalone.js');
    return existsSync(file) ? { name: `scalar-${version}.js`, file } : null;
  } catch {
    return null;
  }
}

function builtScalar(): Asset | null {
  const name = existsSync(API_REFERENCE_DIST)
    ? readdirSync(API_REFERENCE_DIST).find((f) => /^scalar-[\w.-]+\.js$/.test(f))
    : undefined;
  return name ? { name, file: path.join(API_REFERENCE_DIST, name) } : null;
}

const escapeAttr = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function page(setup: Asset, scalar: Asset): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Unseen Stats API reference</title>
<script src="${API_DOCS_ASSETS}${setup.name}"></script>
</head>
<body>
<noscript>This page needs JavaScript. The API's description itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script id="api-reference" data-url="/v1/openapi.json" data-configuration="${escapeAttr(JSON.stringify(SCALAR_CONFIG))}"></script>
<script src="${API_DOCS_ASSETS}${scalar.name}"></script>
</body>
</html>
`;
}

/**
 * GET /v1/docs: the API reference, rendered in the browser from /v1/openapi.json by Scalar's bundle,
 * served from this service (`/v1/docs/assets/<name>-<version>.js`, cached for a year, gzip when asked)
 * rather than a CDN. The page runs under the dashboard's CSP plus inline styles, which the reference
 * injects as it renders: no inline script, no eval, nothing from elsewhere.
 */
export function apiDocsHandler(deps: Pick<Deps, 'urls'>) {
  const setup: Asset = { name: `setup-${createHash('sha256').update(SETUP_JS).digest('hex').slice(0, 12)}.js`, text: SETUP_JS };
  let scalar: Asset | null | undefined;

  return async (ctx: Context) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      return sendProblem(ctx, new AppError(404, 'The API reference is read with GET'));
    }
    scalar ??= findScalar();
    if (!scalar) {
      return sendProblem(
        ctx,
        new AppError(503, 'The API reference page is not installed on this server: read /v1/openapi.json instead', {
          code: 'not-configured',
        }),
      );
    }
    const https = servedOverHttps(ctx, deps.urls.app);
    if (ctx.path === API_DOCS_PATH || ctx.path === `${API_DOCS_PATH}/`) {
      // The request client sends to the document's server (BASE_URL), which may be another origin than the page's.
      const connectSrc = [new URL(deps.urls.base).origin];
      setPageSecurityHeaders(ctx, { https, styleSrc: ["'unsafe-inline'"], connectSrc });
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page(setup, scalar);
      return;
    }
    const asset = [setup, scalar].find((a) => ctx.path === `${API_DOCS_ASSETS}${a.name}`);
    if (!asset) return sendProblem(ctx, new AppError(404, 'No such file of the API reference: reload /v1/docs'));
    setPageSecurityHeaders(ctx, { https });
    ctx.set('Cache-Control', IMMUTABLE);
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = 'text/javascript; charset=utf-8';
    if (asset.text !== undefined) {
      ctx.body = asset.text;
    } else if (/\bgzip\b/.test(ctx.get('accept-encoding'))) {
      // Compressed once, off the event loop, the first time a browser asks.
      asset.gzipped ??= promisify(gzip)(readFileSync(asset.file as string)).catch((err: unknown) => {
        asset.gzipped = undefined;
        throw err;
      });
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = await asset.gzipped;
    } else {
      ctx.body = createReadStream(asset.file as string);
    }
  };
}
