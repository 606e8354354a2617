import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import type { Context } from 'koa';
import type { Ctx } from '../context.ts';
import type { Deps } from '../deps.ts';
import { appRouter } from '../router/index.ts';
import { createCtx, requestInfo } from './request-context.ts';

/** The SPA face: tRPC over HTTP at /trpc, cookie session; the problem rides in error.data.problem. */
export function trpcHandler(deps: Deps) {
  return async (ctx: Context) => {
    const path = ctx.path.replace(/^\/trpc\/?/, '');
    ctx.respond = false;
    ctx.res.statusCode = 200;
    await nodeHTTPRequestHandler({
      req: ctx.req,
      res: ctx.res,
      router: appRouter,
      path,
      createContext: () => createCtx(deps, requestInfo(ctx.req, 'trpc', ctx.ip, ctx.secure)),
      responseMeta: ({ ctx: c, errors }) => {
        const out = (c as Ctx | undefined)?.out;
        const headers = new Headers();
        for (const [k, v] of Object.entries(out?.headers ?? {})) headers.set(k, v);
        for (const cookie of out?.cookies ?? []) headers.append('Set-Cookie', cookie);
        const first = errors[0] as { cause?: { status?: number } } | undefined;
        const retry = (first?.cause as { retryAfter?: number } | undefined)?.retryAfter;
        if (retry !== undefined) headers.set('Retry-After', String(retry));
        return { headers };
      },
    });
  };
}
