import { type AppError, toProblem } from '../errors.ts';

/** Where a problem is written: a Koa context, or the collect lane's exchange. */
export interface ProblemTarget {
  status: number;
  set(header: string, value: string): void;
  type: string;
  body: unknown;
  /** The answer's headers so far (a Koa context's): a Cache-Control already set there is kept. */
  response?: { get(header: string): unknown };
}

/**
 * What API answers carry unless they set their own: a caller's figures, settings and secrets (a shared link's URL)
 * are kept by no shared cache keyed by URL only, nor by the browser's disk after sign-out.
 */
export const NO_STORE = 'no-store';

/** Whether `headers` name a Cache-Control (any case). */
export function hasCacheControl(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === 'cache-control');
}

/**
 * Writes an AppError as application/problem+json, with Retry-After and WWW-Authenticate where due, and
 * `Cache-Control: no-store` unless the error or the answer already names one.
 */
export function sendProblem(ctx: ProblemTarget, err: AppError) {
  ctx.status = err.status;
  if (!hasCacheControl(err.headers) && !ctx.response?.get('Cache-Control')) ctx.set('Cache-Control', NO_STORE);
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  if (err.retryAfter !== undefined) ctx.set('Retry-After', String(err.retryAfter));
  if (err.status === 401 && !err.headers['WWW-Authenticate']) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(toProblem(err));
}
