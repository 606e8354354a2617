import { initTRPC } from '@trpc/server';
import { logFailure, toAppError } from '../core/error-map.ts';
import { toProblem } from '../core/errors.ts';
import type { Ctx } from './context.ts';
import type { Meta } from './meta.ts';

/** The tRPC instance: context, meta and the SPA face's error shape. Procedures come from `procedures.ts`. */

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
          problem: toProblem(app),
          retryAfter: app.retryAfter ?? null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const baseProcedure = t.procedure;
