import { type TRPC_ERROR_CODE_KEY, TRPCError } from '@trpc/server';
import { isUuid } from '../actor/access.ts';
import type { Actor } from '../actor/actor.ts';
import { bumpCredentialsGeneration, watchTokenEnds } from '../actor/token-cache.ts';
import { toAppError } from '../core/error-map.ts';
import { forbidden, unauthorized } from '../core/errors.ts';
import { bumpSitesGeneration } from '../core/hot/generations.ts';
import { authorize } from './authorize.ts';
import { baseProcedure } from './init.ts';
import { refuseUnsafeText } from './input-guard.ts';
import { scopesOf } from './meta.ts';

/**
 * The three builders every operation starts from. Each one applies the rules its operation's meta
 * declares (credentials, scope, site restriction, cross-site protection, unsafe text) and narrows the
 * context's type, so a procedure body never checks for a missing caller:
 * - `publicProcedure`: no credentials needed (`meta.auth` 'none'), or used when present ('optional');
 *   `ctx.auth` is the caller or null.
 * - `actorProcedure`: a signed-in person or an API token (`meta.auth` 'any'); `ctx.actor: Actor`.
 * - `personProcedure`: a signed-in person only (`meta.auth` 'person'); `ctx.actor: PersonActor`.
 * Each builder writes its name into the meta (`meta.builder`); a contract test checks that every
 * operation's `meta.auth` agrees with the builder it was made from.
 */

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

/** A refusal as the tRPC error of the same status, so the SPA face gets real HTTP statuses. */
function asTrpcError(err: unknown): unknown {
  const app = toAppError(err);
  const code = CODE_BY_STATUS[app.status];
  return code ? new TRPCError({ code, message: app.title, cause: app }) : err;
}

const checked = baseProcedure.use(async ({ ctx, meta, next, getRawInput }) => {
  if (!meta) throw new Error('every procedure declares meta');
  let auth: Actor | null;
  try {
    auth = await authorize(ctx, meta);
    refuseUnsafeText(await getRawInput(), meta.textBlocks);
  } catch (err) {
    throw asTrpcError(err);
  }
  const { result, ended } = await watchTokenEnds(() => next({ ctx: { auth } }));
  // Nodes cache API tokens (actor/token-cache.ts): an operation that revoked any, committed by now, tells
  // them to look again before the answer leaves, so a revoked token is refused at once everywhere. Also
  // when it failed after revoking (what committed stays revoked; a bump too many costs one lookup).
  if (ended.length > 0) {
    await bumpCredentialsGeneration(ctx.deps.hot, ended).catch((e) =>
      ctx.deps.logger.error('credentials: the revocation counter could not be bumped; cached tokens expire within a minute', e),
    );
  }
  if (!result.ok) throw asTrpcError(result.error);
  // Collect nodes cache sites by public key (and the protection config they serve edges); any site or
  // bot-protection change tells them to look that site up again (every site when the operation names none).
  // The change has committed: a bump that fails must not answer it as failed (a retry under its Idempotency-Key
  // made a second site). Nodes then see it when their cached sites expire, within a minute.
  if (scopesOf(meta).some((s) => s === 'sites:write' || s === 'bot:write')) {
    const named = siteNamed(await getRawInput(), result.data);
    await bumpSitesGeneration(ctx.deps.hot, named).catch((e) =>
      ctx.deps.logger.error('sites: the change counter could not be bumped; cached sites expire within a minute', e),
    );
  }
  return result;
});

/**
 * The site an operation names, as a list for the sites' generation: its input's `id` (a route under
 * `/v1/sites/{id}`, or a dashboard action given the site's id), else the site it made (nothing cached names a new
 * site); undefined (every site) when it names none. Every site for a new one made each collect node forget every
 * tenant's sites, and a loop of them kept every tenant's reports on the database.
 */
function siteNamed(input: unknown, answer: unknown): string[] | undefined {
  const id = (input as { id?: unknown } | null)?.id ?? (answer as { site?: { id?: unknown } } | null)?.site?.id;
  return typeof id === 'string' && isUuid(id) ? [id.toLowerCase()] : undefined;
}

export const publicProcedure = checked.meta({ builder: 'public', auth: 'none' });

export const actorProcedure = checked.meta({ builder: 'actor', auth: 'any' }).use(({ ctx, next }) => {
  if (!ctx.auth) throw asTrpcError(unauthorized());
  return next({ ctx: { actor: ctx.auth } });
});

export const personProcedure = checked.meta({ builder: 'person', auth: 'person' }).use(({ ctx, next }) => {
  const auth = ctx.auth;
  if (auth?.type !== 'user') {
    throw asTrpcError(forbidden('Only a signed-in person can do this: API tokens cannot; sign in to the dashboard'));
  }
  return next({ ctx: { actor: auth } });
});
