import { type AppError, toProblem } from '../errors.ts';

/** Where a problem is written: a Koa context, or the collect lane's exchange. */
export interface ProblemTarget {
  status: number;
  set(header: string, value: string): void;
  type: string;
  body: unknown;
}

/** Writes an AppError as application/problem+json, with Retry-After and WWW-Authenticate where due. */
export function sendProblem(ctx: ProblemTarget, err: AppError) {
  ctx.status = err.status;
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  if (err.retryAfter !== undefined) ctx.set('Retry-After', String(err.retryAfter));
  if (err.status === 401 && !err.headers['WWW-Authenticate']) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(toProblem(err));
}
