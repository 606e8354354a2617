import { bumpSitesGeneration } from '../collect/site-cache.ts';
import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import type { Ctx } from '../context.ts';
import { AppError, forbidden, unauthorized } from '../errors.ts';
import type { Actor } from '../services/credentials.ts';
import { refuseUnsafeText } from './input-guard.ts';
import type { Meta } from './meta.ts';
import { logFailure, toAppError } from '../error-map.ts';

const t = initTRPC
  .context<Ctx>()
  .meta<Meta>()
  .create({
    // The SPA face: the problem travels in `data.problem`, the same body REST would send.
    errorFormatter({ shape, error, ctx }) {
      const app = toAppError(error);
      if (ctx) logFailure(ctx.deps.logger, 'procedure', app);
      return {
        message: app.title,
        code: shape.code,
        data: {
          code: shape.data.code,
          httpStatus: app.status,
          problem: { title: app.title, status: app.status, ...(app.field ? { field: app.field } : {}) },
          retryAfter: app.retryAfter ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

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
    // A dead credential is no credential here (logout must still answer and clear the cookie).
    const actor = await ctx.actor().catch(() => null);
    if (actor?.type === 'user') checkSameSite(ctx);
    return actor;
  }
  const actor = await ctx.actor();
  if (!actor) throw ctx.req.face === 'trpc' ? unauthorized('Sign in to continue') : unauthorized();
  if (meta.auth === 'person' && actor.type !== 'user') {
    throw forbidden('Only a signed-in person can do this: API tokens cannot; sign in to the dashboard');
  }
  if (actor.type === 'user') checkSameSite(ctx);
  if (meta.scope && !actor.scopes.includes(meta.scope)) {
    throw forbidden(
      actor.workspaceId === null
        ? `Missing scope ${meta.scope}: you belong to no workspace yet; create or join one`
        : `Missing scope ${meta.scope}: ask a workspace owner for a role or token that has it`,
    );
  }
  if (meta.noRestricted && actor.siteIds !== null) {
    throw forbidden('Site-restricted tokens cannot do this: use a token without siteIds');
  }
  return actor;
}

/** The one procedure every operation is built from: it applies `authorize` before the resolver. */
const CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

function asTrpcError(err: unknown): unknown {
  const app = toAppError(err);
  const code = CODE_BY_STATUS[app.status];
  return code ? new TRPCError({ code, message: app.title, cause: app }) : err;
}

/**
 * The one procedure every operation is built from: it applies `authorize` before the resolver, and
 * turns a refusal into the tRPC error of the same status (so the SPA face gets real HTTP statuses).
 */
export const procedure = t.procedure.use(async ({ ctx, meta, next, getRawInput }) => {
  if (!meta) throw new Error('every procedure declares meta');
  let auth: Actor | null;
  try {
    auth = await authorize(ctx, meta);
    refuseUnsafeText(await getRawInput());
  } catch (err) {
    throw asTrpcError(err);
  }
  const result = await next({ ctx: { ...ctx, auth } });
  if (!result.ok) throw asTrpcError(result.error);
  // Collect nodes cache sites by public key; any site change tells them to look again.
  if (meta.scope === 'sites:write') await bumpSitesGeneration(ctx.deps.hot);
  return result;
});

/** For procedures whose meta guarantees an actor. */
export function requireActor(auth: Actor | null): Actor {
  if (!auth) throw new AppError(401, 'Sign in, or send a valid API token as Authorization: Bearer <token>');
  return auth;
}
