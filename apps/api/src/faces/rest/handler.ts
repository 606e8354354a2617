import type { Context } from 'koa';
import type { Deps } from '../../core/deps.ts';
import { logFailure, toAppError } from '../../core/error-map.ts';
import { AppError } from '../../core/errors.ts';
import { NO_STORE, sendProblem } from '../../core/http/problem-response.ts';
import { label } from '../../core/observe/request-scope.ts';
import type { ResponseOut } from '../../procedures/context.ts';
import type { Operation } from '../../procedures/registry.ts';
import { invoke } from '../invoke.ts';
import { createCtx, requestInfo } from '../request-context.ts';
import { restTokenRefusal } from '../token-rate.ts';
import { readJsonBody } from './body.ts';
import { coerceQuery } from './query.ts';
import { allowedMethods, compileRoutes, matchRoute, type RestRoute } from './routes.ts';

/** Methods whose input is the JSON body only: a query string cannot carry their input (login CSRF). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The query string as input: GET/DELETE read it; a body method refuses any parameter in it. */
function queryInput(route: RestRoute, method: string, query: URLSearchParams): Record<string, unknown> {
  if (BODY_METHODS.has(method)) {
    const [first] = query.keys();
    if (first !== undefined) {
      throw new AppError(400, `Send ${first} in the JSON body: ${method} requests take no query parameters`, { field: first });
    }
    return {};
  }
  return coerceQuery(route.op.input, query);
}

/** The operation's headers and cookies on the answer; `Cache-Control: no-store` unless the operation set its own. */
function applyOut(ctx: Context, out: ResponseOut) {
  for (const [k, v] of Object.entries(out.headers)) ctx.set(k, v);
  if (out.cookies.length) ctx.append('Set-Cookie', out.cookies);
  if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', NO_STORE);
}

/** The REST face: `/v1/*` routes generated from the operations' meta, answering JSON or problem+json. */
export function restHandler(deps: Deps, ops: Operation[]) {
  const routes = compileRoutes(ops);
  return async (ctx: Context) => {
    const { route, params, pathMatched } = matchRoute(routes, ctx.method, ctx.path);
    if (route) label('rest', route.path, route.op.path);
    else label('rest', '/v1/(unmatched)', '(unmatched)');
    if (!route) {
      // A method the path does not take stays a 404 (the spec lists no 405), saying in `Allow` which it takes.
      if (pathMatched) ctx.set('Allow', allowedMethods(routes, ctx.path));
      const err = pathMatched
        ? new AppError(404, `This path does not accept ${ctx.method}: check the method in /v1/openapi.json`)
        : new AppError(404, 'No such route: check the path against /v1/openapi.json');
      return sendProblem(ctx, err);
    }
    const query = new URLSearchParams(ctx.querystring);
    const workspaceQuery = query.get('workspace') ?? undefined;
    query.delete('workspace');
    const info = requestInfo(ctx.req, 'rest', ctx.ip, ctx.secure, workspaceQuery);
    const reqCtx = createCtx(deps, info);
    try {
      // Counted before the body is read.
      if (info.bearer !== undefined) {
        const refusal = await restTokenRefusal(deps, reqCtx, 1);
        if (refusal) throw refusal;
      }
      const fromQuery = queryInput(route, ctx.method, query);
      const body = ['GET', 'HEAD'].includes(ctx.method) ? undefined : await readJsonBody(ctx.req);
      const hasInput = body !== undefined || Object.keys(fromQuery).length > 0 || route.params.length > 0;
      const input = hasInput ? { ...fromQuery, ...(body ?? {}), ...params } : undefined;
      const rawKey = ctx.req.headers['idempotency-key'];
      const key = Array.isArray(rawKey) ? rawKey[0] : rawKey;
      const { data, replayed } = await invoke(route.op, reqCtx, input, key);
      applyOut(ctx, reqCtx.out);
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      const status = route.op.meta.status ?? 200;
      ctx.status = status;
      if (status === 204) ctx.body = null;
      else ctx.body = data;
    } catch (err) {
      const app = toAppError(err);
      logFailure(deps.logger, `${ctx.method} ${route.op.meta.openapi?.path}`, app);
      applyOut(ctx, reqCtx.out);
      sendProblem(ctx, app);
    }
  };
}
