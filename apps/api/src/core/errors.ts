/**
 * The one error type of the service. Services throw it; one place per face maps it to the answer:
 * problem+json (REST), a tRPC error carrying the problem (SPA), an isError tool result (MCP).
 * `title` is written to be acted on: it says what to do.
 */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500 | 503;

export class AppError extends Error {
  readonly status: ErrorStatus;
  readonly title: string;
  readonly field: string | undefined;
  readonly retryAfter: number | undefined;
  /** Headers the answer must carry (e.g. WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    status: ErrorStatus,
    title: string,
    opts: { field?: string; retryAfter?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    // `cause` is for the log only: it never reaches an answer.
    super(title, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.title = title;
    this.field = opts.field;
    this.retryAfter = opts.retryAfter;
    this.headers = opts.headers ?? {};
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  field?: string;
  retryAfter?: number;
}

export function toProblem(err: AppError): Problem {
  const p: Problem = { type: 'about:blank', title: err.title, status: err.status };
  if (err.field !== undefined) p.field = err.field;
  if (err.retryAfter !== undefined) p.retryAfter = err.retryAfter;
  return p;
}

export const badRequest = (field: string, title: string) => new AppError(400, title, { field });
export const unauthorized = (title = 'Sign in, or send a valid API token as Authorization: Bearer <token>') =>
  new AppError(401, title, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (title: string) => new AppError(403, title);
export const notFound = (what: string) =>
  new AppError(404, `No such ${what} in this workspace: check the id, or choose another workspace`);
export const tooMany = (retryAfter: number, title?: string) =>
  new AppError(429, title ?? `Too many requests: wait ${retryAfter} seconds, then try again`, { retryAfter });
