import type { Context } from 'koa';
import { type AppError, toProblem } from '../errors.ts';

/** Writes an AppError as application/problem+json, with Retry-After and WWW-Authenticate where due. */
export function sendProblem(ctx: Context, err: AppError) {
  ctx.status = err.status;
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  if (err.retryAfter !== undefined) ctx.set('Retry-After', String(err.retryAfter));
  if (err.status === 401 && !err.headers['WWW-Authenticate']) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(toProblem(err));
}
