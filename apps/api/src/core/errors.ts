import { type ProblemCode, problemTypeUri } from './problem-types.ts';

/**
 * The one error type of the service. Services throw it; one place per face maps it to the answer:
 * problem+json (REST), a tRPC error carrying the problem (SPA), an isError tool result (MCP).
 * `title` is written to be acted on: it says what to do; `code` says which kind of problem it is, for
 * clients to act on without reading the title (core/problem-types.ts).
 */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 410 | 413 | 422 | 429 | 500 | 502 | 503 | 504;

/** The code of a status unless the throw site names another of the same status (`scope-missing`, ...). */
export const CODE_OF_STATUS: Record<ErrorStatus, ProblemCode> = {
  400: 'validation',
  401: 'unauthenticated',
  402: 'plan-limit',
  403: 'forbidden',
  404: 'not-found',
  405: 'validation',
  409: 'conflict',
  410: 'gone',
  413: 'too-large',
  422: 'idempotency-mismatch',
  429: 'rate-limited',
  500: 'internal',
  502: 'origin-unreachable',
  503: 'unavailable',
  504: 'origin-timeout',
};

export class AppError extends Error {
  readonly status: ErrorStatus;
  readonly code: ProblemCode;
  readonly title: string;
  readonly field: string | undefined;
  readonly retryAfter: number | undefined;
  /** Headers the answer must carry (e.g. WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    status: ErrorStatus,
    title: string,
    opts: { code?: ProblemCode; field?: string; retryAfter?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    // `cause` is for the log only: it never reaches an answer.
    super(title, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = opts.code ?? CODE_OF_STATUS[status];
    this.title = title;
    this.field = opts.field;
    this.retryAfter = opts.retryAfter;
    this.headers = opts.headers ?? {};
  }
}

export interface Problem {
  type: string;
  code: ProblemCode;
  title: string;
  status: number;
  field?: string;
  retryAfter?: number;
}

export function toProblem(err: AppError): Problem {
  const p: Problem = { type: problemTypeUri(err.code), code: err.code, title: err.title, status: err.status };
  if (err.field !== undefined) p.field = err.field;
  if (err.retryAfter !== undefined) p.retryAfter = err.retryAfter;
  return p;
}

export const badRequest = (field: string, title: string) => new AppError(400, title, { field });
export const unauthorized = (title = 'Sign in, or send a valid API token as Authorization: Bearer <token>') =>
  new AppError(401, title, { headers: { 'WWW-Authenticate': 'Bearer' } });
/** Not allowed for this kind of caller, whatever its scopes (a missing scope is `scopeMissing`). */
export const forbidden = (title: string) => new AppError(403, title);
/** The caller lacks `scope`: the title is `Missing scope <scope>: <what to do>`. */
export const scopeMissing = (scope: string, whatToDo: string) =>
  new AppError(403, `Missing scope ${scope}: ${whatToDo}`, { code: 'scope-missing' });
export const notFound = (what: string) =>
  new AppError(404, `No such ${what} in this workspace: check the id, or choose another workspace`);
/** A route asked with a method it does not take (405 with `Allow`). */
export const methodNotAllowed = (allow: string) =>
  new AppError(405, `Use ${allow.replace(/, ([A-Z]+)$/, ' or $1')} for this path`, { headers: { Allow: allow } });
export const tooMany = (retryAfter: number, title?: string) =>
  new AppError(429, title ?? `Too many requests: wait ${retryAfter} seconds, then try again`, { retryAfter });
/** The operator has not set up what this needs: retrying will not help until they do. */
export const notConfigured = (title: string) => new AppError(503, title, { code: 'not-configured' });
