import type { Context } from 'koa';

/** HSTS for a year; no `includeSubDomains`: the operator's other hosts under the same name are not ours to pin. */
const HSTS = 'max-age=31536000';

/**
 * Who may show the page in a frame: nobody (`'none'`, the default), or the listed hosts (a shared view
 * whose owner allows embedding: the site's own hostnames). Bare hostnames match the page's own scheme
 * (https pages only in https parents).
 */
export type FrameAncestors = 'none' | readonly string[];

export interface PagePolicy {
  /** Script, style, image and connect sources beyond the defaults; `'unsafe-inline'` styles only where a page needs them. */
  styleSrc?: readonly string[];
  connectSrc?: readonly string[];
  frameAncestors?: FrameAncestors;
}

/**
 * The dashboard's Content-Security-Policy: its own files only, no inline script or eval, images from
 * itself or `data:` URLs, calls to itself. React's `style={…}` goes through the CSSOM, which `style-src`
 * does not govern, so the dashboard needs no inline styles.
 */
export function contentSecurityPolicy(policy: PagePolicy = {}): string {
  const ancestors = policy.frameAncestors ?? 'none';
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${["'self'", ...(policy.styleSrc ?? [])].join(' ')}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...(policy.connectSrc ?? [])].join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors === 'none' || ancestors.length === 0 ? "'none'" : ancestors.join(' ')}`,
  ].join('; ');
}

/** Whether the answer goes out over https: APP_URL says so, or the request came over https (through the trusted hop). */
export const servedOverHttps = (ctx: Context, appUrl: string) => ctx.secure || appUrl.startsWith('https:');

/**
 * The headers of every page and asset the service serves to browsers (dashboard, shared views, API
 * reference): CSP, framing, referrer, no type sniffing, and HSTS over https. Referrer-Policy is
 * `strict-origin-when-cross-origin`, not `no-referrer`: under `no-referrer` browsers send `Origin: null`
 * on the dashboard's own POSTs, which the cross-site check (procedures/authorize.ts) refuses; other
 * sites still get only the origin, never a path holding a shared link's secret or an e-mail link's token.
 */
export function setPageSecurityHeaders(ctx: Context, opts: PagePolicy & { https: boolean }) {
  ctx.set('Content-Security-Policy', contentSecurityPolicy(opts));
  // The older header has no list form: sent only when nobody may frame the page.
  const ancestors = opts.frameAncestors ?? 'none';
  if (ancestors === 'none' || ancestors.length === 0) ctx.set('X-Frame-Options', 'DENY');
  else ctx.remove('X-Frame-Options');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (opts.https) ctx.set('Strict-Transport-Security', HSTS);
}
