import { type AnyRouter, getTRPCErrorFromUnknown, TRPCError } from '@trpc/server';
import type { Ctx } from './context.ts';

type Opts = Record<string, unknown> & { ctx: Record<string, unknown>; input?: unknown };
type Result = { ok: true; data: unknown } | { ok: false; error: unknown };
type NextOpts = { ctx?: Record<string, unknown>; input?: unknown; getRawInput?: unknown } | undefined;
type Middleware = (opts: Opts & { meta: unknown; next: (o?: NextOpts) => Promise<Result> }) => Promise<Result>;

interface ProcedureInsides {
  _def: { type: string; meta?: unknown; middlewares: Middleware[] };
}

/**
 * tRPC's middleware chain (`callRecursive` in @trpc/server) step for step: each middleware gets the
 * options plus meta, input and `next`; `next({ ctx })` merges into the context; a throw becomes a failed
 * result. The one difference is native object spreads: the library's transpiled spread helper (a
 * `defineProperty` per key, twice per middleware) was a sixth of a token request's time.
 */
async function runChain(middlewares: Middleware[], meta: unknown, index: number, opts: Opts): Promise<Result> {
  try {
    const middleware = middlewares[index] as Middleware;
    return await middleware({
      ...opts,
      meta,
      input: opts.input,
      next: (nextOpts?: NextOpts) =>
        runChain(middlewares, meta, index + 1, {
          ...opts,
          ctx: nextOpts?.ctx ? { ...opts.ctx, ...nextOpts.ctx } : opts.ctx,
          input: nextOpts && 'input' in nextOpts ? nextOpts.input : opts.input,
          getRawInput: nextOpts?.getRawInput ?? opts.getRawInput,
        }),
    });
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause) };
  }
}

/**
 * Calls one procedure of `router` in-process, as `createCaller(ctx)[path](input)` does: every middleware,
 * input and output validation, the same errors. Reads the router's insides (like `registry.ts`; both
 * covered by `registry.test.ts`).
 */
export function procedureCaller(router: AnyRouter) {
  const procedures = router._def.procedures as Record<string, ProcedureInsides>;
  return async (path: string, ctx: Ctx, input: unknown): Promise<unknown> => {
    const def = procedures[path]?._def;
    if (!def) throw new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${path}"` });
    const opts: Opts = {
      path,
      getRawInput: async () => input,
      ctx: ctx as unknown as Record<string, unknown>,
      type: def.type,
      signal: undefined,
      batchIndex: 0,
    };
    const result = await runChain(def.middlewares, def.meta, 0, opts);
    if (!result) {
      throw new TRPCError({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'No result from middlewares - did you forget to `return next()`?',
      });
    }
    if (!result.ok) throw result.error;
    return result.data;
  };
}
