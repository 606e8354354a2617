import type { Actor } from '../actor/actor.ts';
import { forbidden, scopeMissing, unauthorized } from '../core/errors.ts';
import type { Ctx } from './context.ts';
import { type Meta, scopesOf } from './meta.ts';

/**
 * Refuses state changes a browser sends from another site: cookie-authenticated ones, and the sign-in
 * routes that need no credentials (a foreign page must not sign a visitor into its own account, or start
 * sign-ups and resets in their name). Requests without an Origin (curl, SDKs) pass.
 */
function checkSameSite(ctx: Ctx) {
  const { req } = ctx;
  if (req.method === 'GET' || req.method === 'HEAD') return;
  if (req.secFetchSite === 'cross-site') throw forbidden('Cross-site request refused: use the dashboard or an API token');
  if (req.origin) {
    // Scheme and host must both match: http://host is another origin than https://host.
    const allowed = new Set([req.selfOrigin, new URL(ctx.deps.urls.app).origin, new URL(ctx.deps.urls.base).origin]);
    if (!allowed.has(req.origin)) throw forbidden('Cross-site request refused: use the dashboard or an API token');
  }
}

/**
 * The rules an operation's meta declares: credentials, person-only, scope, site restriction,
 * cross-site protection. Returns the actor (null when the operation needs none). Used by the
 * procedure middleware and, before an idempotent replay, by `invoke`, so a stored answer is only
 * handed to a caller who may make the request now.
 */
export async function authorize(ctx: Ctx, meta: Meta): Promise<Actor | null> {
  if (meta.auth === 'none') {
    checkSameSite(ctx);
    return null;
  }
  if (meta.auth === 'optional') {
    // A dead credential is no credential here (logout must still answer and clear the cookie). A session cookie
    // is acted on whatever else the request carries (logout ends it by itself), so it is checked as such.
    if (ctx.req.sessionCookie !== undefined) checkSameSite(ctx);
    const actor = await ctx.resolveActor().catch(() => null);
    return actor?.type === 'share' ? null : actor;
  }
  const actor = await ctx.resolveActor();
  if (!actor) throw ctx.req.face === 'trpc' ? unauthorized('Sign in to continue') : unauthorized();
  if (actor.type === 'share' && !meta.shareable) {
    throw forbidden('A shared link shows the dashboard only: sign in to the account that owns the site for more');
  }
  if (meta.auth === 'person' && actor.type !== 'user') {
    throw forbidden('Only a signed-in person can do this: API tokens cannot; sign in to the dashboard');
  }
  if (actor.type === 'user') checkSameSite(ctx);
  // Every scope the meta names is required; the problem names the first one missing.
  const missing = scopesOf(meta).find((scope) => !actor.scopes.includes(scope));
  if (missing) {
    throw scopeMissing(
      missing,
      actor.workspaceId === null
        ? 'you belong to no workspace yet; create or join one'
        : 'ask a workspace owner for a role or token that has it',
    );
  }
  if (meta.noRestricted && actor.siteIds !== null) {
    throw forbidden('Site-restricted tokens cannot do this: use a token without siteIds');
  }
  return actor;
}
