import { INTERNAL_MARK_COOKIE } from '@us/shared';
import type { Context } from 'koa';
import type { Deps } from '../core/deps.ts';
import { AppError } from '../core/errors.ts';
import { overBudget } from '../core/hot/address-budget.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { followInternalLink, type LinkOutcome } from '../features/internal-link/links.ts';
import { internalMarkCookie } from '../features/internal-link/mark.ts';
import { passReturn } from '../features/protection/challenge/pass-return.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function page(title: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.3rem}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
</body>
</html>
`;
}

function sendPage(ctx: Context, status: number, title: string, text: string) {
  ctx.status = status;
  // The link's token is in the address: never cache the page, never pass the address on.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Robots-Tag', 'noindex');
  // Framed nowhere, sniffed as nothing else (frame-ancestors does not fall back to default-src).
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, text);
}

/** Plain http on a localhost name (development): the mark cookie then drops Secure, as browsers would refuse it. */
const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The first-party `/_us/` paths, served when the request's Host is one of a site's hostnames (the edge
 * SDK and proxy mode forward them here). `GET /_us/internal?token=…` follows an internal link: it sets
 * the `us_internal` mark (90 days) and answers a small page. Refusals of the link itself are pages too
 * (a person opened it in a browser): 410 for an expired, unknown or already-used link, 404 for a link of
 * another site. `GET /_us/pass?g=…` is where a browser that passed the bot check comes back: it sets
 * `us_pass` and returns to the page asked for (challenge/pass-return.ts). A Host that is no site's
 * hostname, and any other `/_us/` path, is a 404 problem.
 */
export function firstPartyHandler(deps: Deps) {
  return async (ctx: Context) => {
    if (ctx.path === '/_us/pass' && ctx.method === 'GET') return passReturn(deps, ctx);
    if (ctx.path !== '/_us/internal' || ctx.method !== 'GET') {
      return sendProblem(ctx, new AppError(404, 'No such first-party path: check the address'));
    }
    // Counted per connecting address before the Host is looked up (edges forward for many visitors).
    if (await overBudget(deps.hot, 'internal', ctx.ip)) {
      ctx.set('Retry-After', '60');
      return sendPage(
        ctx,
        429,
        'Too many requests',
        'This address opened too many internal links in a minute: try again in a minute.',
      );
    }
    const host = ctx.hostname.toLowerCase().replace(/\.$/, '');
    const rawToken = ctx.query.token;
    const token = typeof rawToken === 'string' ? rawToken : undefined;
    let outcome: LinkOutcome;
    try {
      outcome = await followInternalLink(deps, deps.orm.em.fork(), host, token, ctx.cookies.get(INTERNAL_MARK_COOKIE));
    } catch (err) {
      deps.logger.error('GET /_us/internal failed', err);
      return sendProblem(ctx, new AppError(500, 'Something went wrong on our side: open the link again in a moment'));
    }
    if (outcome.kind === 'unknown-host') {
      return sendProblem(
        ctx,
        new AppError(404, 'This hostname is not a hostname of any site: open the link exactly as you received it'),
      );
    }
    if (outcome.kind === 'refused') {
      return sendPage(ctx, outcome.status, 'This internal link cannot be used', outcome.message);
    }
    ctx.append('Set-Cookie', internalMarkCookie(outcome.cookieValue, { secure: ctx.secure || !isLocalName(host) }));
    sendPage(
      ctx,
      200,
      `This browser is now marked as internal for ${outcome.siteName}`,
      `Visits from this browser to ${outcome.siteName} are now counted as your team's own traffic, apart from your visitors, for 90 days. You can close this page.`,
    );
  };
}
