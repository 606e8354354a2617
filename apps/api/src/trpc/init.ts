import { initTRPC } from '@trpc/server';
import type { Ctx } from '../context.ts';
import { AppError, forbidden, unauthorized } from '../errors.ts';
import type { Actor } from '../services/credentials.ts';
import type { Meta } from './meta.ts';
import { isInternal, toAppError } from './problem.ts';

const t = initTRPC
  .context<Ctx>()
  .meta<Meta>()
  .create({
    // The SPA face: the problem travels in `data.problem`, the same body REST would send.
    errorFormatter({ shape, error, ctx }) {
      const app = toAppError(error);
      if (isInternal(app)) ctx?.deps.logger.error('procedure failed', error.cause ?? error);
      return {
        message: app.title,
        code: shape.code,
        data: {
          httpStatus: app.status,
          problem: { title: app.title, status: app.status, ...(app.field ? { field: app.field } : {}) },
          retryAfter: app.retryAfter ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Refuses cookie-authenticated state changes that come from another site. */
function checkSameSite(ctx: Ctx) {
  const { req } = ctx;
  if (req.method === 'GET' || req.method === 'HEAD') return;
  if (req.secFetchSite === 'cross-site') throw forbidden('Cross-site request refused: use the dashboard or an API token');
  if (req.origin) {
    let host: string;
    try {
      host = new URL(req.origin).host;
    } catch {
      throw forbidden('Cross-site request refused: use the dashboard or an API token');
    }
    const allowed = new Set([req.host, new URL(ctx.deps.urls.app).host, new URL(ctx.deps.urls.base).host]);
    if (!allowed.has(host)) throw forbidden('Cross-site request refused: use the dashboard or an API token');
  }
}

/**
 * The rules an operation's meta declares: credentials, person-only, scope, site restriction,
 * cross-site protection. Returns the actor (null when the operation needs none). Used by the
 * procedure middleware and, before an idempotent replay, by `invoke`, so a stored answer is only
 * handed to a caller who may make the request now.
 */
export async function authorize(ctx: Ctx, meta: Meta): Promise<Actor | null> {
  if (meta.auth === 'none') return null;
  const actor = await ctx.actor();
  if (meta.auth === 'optional') {
    if (actor?.type === 'user') checkSameSite(ctx);
    return actor;
  }
  if (!actor) throw unauthorized();
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
export const procedure = t.procedure.use(async ({ ctx, meta, next }) => {
  if (!meta) throw new Error('every procedure declares meta');
  return next({ ctx: { ...ctx, auth: await authorize(ctx, meta) } });
});

/** For procedures whose meta guarantees an actor. */
export function requireActor(auth: Actor | null): Actor {
  if (!auth) throw new AppError(401, 'Sign in, or send a valid API token as Authorization: Bearer <token>');
  return auth;
}
