import type { Context } from 'koa';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { isProblemCode, PROBLEM_TYPES } from '../core/problem-types.ts';

export const PROBLEM_TYPES_PREFIX = '/problems/';

/**
 * GET /problems/<code>: what a problem's `type` points at (a relative reference, so it resolves to this
 * service). No credentials; the entries change only with a release, so caches may keep them a day.
 */
export function problemTypesHandler() {
  return (ctx: Context) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      return sendProblem(ctx, new AppError(404, 'Problem types are fetched with GET'));
    }
    const code = ctx.path.slice(PROBLEM_TYPES_PREFIX.length);
    if (!isProblemCode(code)) {
      return sendProblem(
        ctx,
        new AppError(404, 'No such problem type: use the type of a problem as it was sent, or see the list in the API docs'),
      );
    }
    const { status, title, description } = PROBLEM_TYPES[code];
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = { code, title, status, description };
  };
}
