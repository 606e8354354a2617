import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import type { Context } from 'koa';
import type { Deps } from '../core/deps.ts';
import { toAppError } from '../core/error-map.ts';
import { AppError } from '../core/errors.ts';
import { BODY_LIMITS, readBody } from '../core/http/body.ts';
import { NO_STORE, sendProblem } from '../core/http/problem-response.ts';
import { label, labelOperations } from '../core/observe/request-scope.ts';
import type { Ctx } from '../procedures/context.ts';
import { listOperations } from '../procedures/registry.ts';
import { appRouter } from '../router.ts';
import { createCtx, requestInfo } from './request-context.ts';
import { restTokenRefusal } from './token-rate.ts';

/** Calls one batched request may carry (the dashboard's client sends at most this many). */
export const TRPC_MAX_BATCH = 10;

/**
 * Procedures that guess or send (sign-in, codes, passwords, e-mails) travel one per request: in a batch
 * they would run concurrently, multiplying guesses past the throttles' counting.
 */
const UNBATCHABLE = /^auth\./;

/** Refuses a batch that names an auth procedure; the size cap is tRPC's own `maxBatchSize`. */
function batchRefusal(paths: string[]): AppError | undefined {
  if (paths.length < 2) return undefined;
  const auth = paths.find((p) => UNBATCHABLE.test(p));
  if (auth)
    return new AppError(400, `Call ${auth} on its own: sign-in and account procedures cannot be batched`, { field: '(batch)' });
  return undefined;
}

/** The SPA face: tRPC over HTTP at /trpc, cookie session; the problem rides in error.data.problem. */
export function trpcHandler(deps: Deps) {
  // Procedure names as the metrics' labels: only the router's own (a made-up name counts as `(unknown)`).
  const known = new Set(listOperations(appRouter).map((op) => op.path));
  return async (ctx: Context) => {
    const path = ctx.path.replace(/^\/trpc\/?/, '');
    label('trpc', '/trpc/{procedure}');
    // tRPC decodes the path before it splits the batch (`auth.login%2Cauth.login` is two calls): so do these checks.
    let paths: string[];
    try {
      paths = decodeURIComponent(path).split(',');
    } catch {
      return sendProblem(ctx, new AppError(400, 'Fix the procedure path: it holds a broken %-escape', { field: '(path)' }));
    }
    labelOperations(paths.slice(0, TRPC_MAX_BATCH).map((p) => (known.has(p) ? p : '(unknown)')));
    const refused = batchRefusal(paths);
    if (refused) return sendProblem(ctx, refused);
    const info = requestInfo(ctx.req, 'trpc', ctx.ip, ctx.secure);
    const reqCtx = createCtx(deps, info);
    // An API token's calls here count against its minute as on REST, each call of a batch one.
    if (info.bearer !== undefined) {
      const refusal = await restTokenRefusal(deps, reqCtx, Math.min(paths.length, TRPC_MAX_BATCH));
      if (refusal) return sendProblem(ctx, refusal);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      try {
        // Read here with the face's limit (413 problem+json, connection kept usable); tRPC takes `req.body`.
        (ctx.req as { body?: unknown }).body = (await readBody(ctx.req, BODY_LIMITS.trpc)).toString('utf8');
      } catch (err) {
        return sendProblem(ctx, toAppError(err));
      }
    }
    ctx.respond = false;
    ctx.res.statusCode = 200;
    await nodeHTTPRequestHandler({
      req: ctx.req,
      res: ctx.res,
      router: appRouter,
      path,
      maxBatchSize: TRPC_MAX_BATCH,
      createContext: () => reqCtx,
      responseMeta: ({ ctx: c, errors }) => {
        const out = (c as Ctx | undefined)?.out;
        const headers = new Headers();
        for (const [k, v] of Object.entries(out?.headers ?? {})) headers.set(k, v);
        for (const cookie of out?.cookies ?? []) headers.append('Set-Cookie', cookie);
        const first = errors[0] as { cause?: { status?: number } } | undefined;
        const retry = (first?.cause as { retryAfter?: number } | undefined)?.retryAfter;
        if (retry !== undefined) headers.set('Retry-After', String(retry));
        // Queries travel as GET: a shared cache or the browser's disk would otherwise keep a caller's figures.
        if (!headers.has('Cache-Control')) headers.set('Cache-Control', NO_STORE);
        return { headers };
      },
    });
  };
}
