import { ForeignKeyConstraintViolationException, NotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core';
import { TRPCError } from '@trpc/server';
import { causeChain, dbFault, isForeignKeyViolation, isUniqueViolation } from '@us/db';
import { ZodError, type z } from 'zod';
import { AppError } from './errors.ts';
import type { Logger } from './logger.ts';
import { heldNote, repeatGate } from './observe/repeat-gate.ts';

/**
 * The one table from every failure we know to the problem answer a caller gets. Every face (REST, tRPC,
 * MCP, collect) turns errors into answers here; the original error stays on `cause`, for the log only.
 */

/** `['scopes', 2]` → `scopes[2]`; `['botWindows', 1, 'from']` → `botWindows[1].from`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === 'number') return `${acc}[${part}]`;
    return acc ? `${acc}.${String(part)}` : String(part);
  }, '');
}

/**
 * For a value no branch of a union accepted (`one value or a list of them`), the issue of the branch that
 * got furthest: deepest in the value, then past the type check. `asn: [1, "x"]` is then `asn[1]` with the
 * item's own message rather than the union's. Unions whose branches all refused the type keep their own.
 */
function innermost(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return issue;
  const score = (i: z.core.$ZodIssue) => i.path.length * 2 + (i.code === 'invalid_type' ? 0 : 1);
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && (!best || score(first) > score(best))) best = first;
  }
  if (!best || score(best) === 0) return issue;
  // A branch's issues carry no input: the value was there (the union was reached), so it is no missing field.
  return innermost({ input: null, ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

/** The first zod issue as a 400 naming its field (`prefix` leads the field, e.g. `records[3]`). */
export function issueToError(first: z.core.$ZodIssue, prefix = ''): AppError {
  const issue = innermost(first);
  const base = fieldPath([...(prefix ? [prefix] : []), ...issue.path]);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] || '(empty name)';
    const field = base ? `${base}.${key}` : key;
    return new AppError(400, `Remove the field ${field}: it is not part of this request`, { field });
  }
  const field = base || '(body)';
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new AppError(400, `${field} is required: add it to the request`, { field });
  }
  return new AppError(400, `Fix ${field}: ${issue.message}`, { field });
}

const internal = (cause: unknown) => new AppError(500, 'Something went wrong on our side: try again in a moment', { cause });

// ioredis's own words for a Redis it cannot reach, and a Redis Cluster's for a slot without a master (a master
// stopped and no replica took over yet): retried by the client until its redirections ran out.
const REDIS_DOWN =
  /^(Connection is closed|Stream isn't writeable|Reached the max retries|Command timed out|Too many Cluster redirections|Cluster isn't ready|CLUSTERDOWN|TRYAGAIN|Failed to refresh slots cache|None of startup nodes is available)/;

const isRedisDown = (e: unknown) =>
  e instanceof Error &&
  (e.name === 'MaxRetriesPerRequestError' || e.name === 'ClusterAllFailedError' || REDIS_DOWN.test(e.message));

type Rule = [matches: (err: unknown) => boolean, answer: (err: unknown) => AppError];

/** Failures that are not AppErrors, ZodErrors or tRPC's own, looked up along the cause chain. */
const RULES: Rule[] = [
  [
    // The write buffer's BufferFull (analytics/ingest), known by name as Redis's failures are below: the
    // error map sits on the floor beneath the ingest buffer.
    (e) => e instanceof Error && e.name === 'BufferFull',
    (cause) =>
      new AppError(503, 'The collector is storing a backlog: send the report again in a few seconds', {
        retryAfter: 5,
        cause,
      }),
  ],
  [
    (e) => e instanceof NotFoundError,
    (cause) => new AppError(404, 'It no longer exists: it was probably deleted meanwhile; reload and check the id', { cause }),
  ],
  // The ORM's own exceptions, and PostgreSQL's errors as raw statements (`getConnection().execute`) throw them.
  [
    (e) => e instanceof UniqueConstraintViolationException || isUniqueViolation(e),
    (cause) =>
      new AppError(409, 'It already exists: the same change was probably made at the same moment; reload and try again', {
        cause,
      }),
  ],
  [
    (e) => e instanceof ForeignKeyConstraintViolationException || isForeignKeyViolation(e),
    (cause) => new AppError(409, 'Something it refers to was deleted meanwhile: reload and try again', { cause }),
  ],
  [
    (e) => dbFault(e) === 'timeout',
    (cause) =>
      new AppError(
        503,
        'This question took longer than the time allowed: narrow the date range or drop a filter, then try again',
        { cause },
      ),
  ],
  [
    (e) => dbFault(e) === 'busy',
    (cause) =>
      new AppError(503, 'Every connection for this kind of question is busy: try again in a few seconds', {
        retryAfter: 2,
        cause,
      }),
  ],
  [
    (e) => dbFault(e) === 'unavailable',
    (cause) =>
      new AppError(503, 'The database is unavailable for a moment: try again in a few seconds', { retryAfter: 5, cause }),
  ],
  [
    isRedisDown,
    (cause) =>
      new AppError(503, 'The hot-state store is unavailable for a moment: try again in a few seconds', { retryAfter: 5, cause }),
  ],
];

function fromTrpc(err: TRPCError): AppError | undefined {
  const cause = err.cause;
  if (cause instanceof AppError) return cause;
  if (cause instanceof ZodError) {
    // Output validation failing is our bug, not the caller's.
    if (err.code === 'INTERNAL_SERVER_ERROR') return internal(err);
    return issueToError(cause.issues[0] as z.core.$ZodIssue);
  }
  switch (err.code) {
    case 'PARSE_ERROR':
      return new AppError(400, 'Send a valid JSON body', { field: '(body)', cause: err });
    case 'BAD_REQUEST':
      return new AppError(400, err.message, { field: '(body)', cause: err });
    case 'PAYLOAD_TOO_LARGE':
      return new AppError(413, 'The body is too large: send less at once', { cause: err });
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new AppError(400, 'Send the body as JSON, with Content-Type: application/json', { field: '(body)', cause: err });
    case 'NOT_FOUND':
    case 'METHOD_NOT_SUPPORTED':
      return new AppError(404, 'No such route: check the method and path', { cause: err });
  }
  return undefined;
}

/** Any error a procedure, the framework or a face threw, as the one error type. Unknown errors become 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return issueToError(err.issues[0] as z.core.$ZodIssue);
  if (err instanceof TRPCError) {
    const mapped = fromTrpc(err);
    if (mapped) return mapped;
  }
  for (const e of causeChain(err)) {
    if (e instanceof AppError) return e;
    for (const [matches, answer] of RULES) if (matches(e)) return answer(err);
  }
  return internal(err);
}

/** Our own failures, worth an error log; a deliberate 503 (a dependency is down) is not one. */
export function isInternal(err: AppError) {
  return err.status === 500;
}

const unavailableLines = repeatGate();

/**
 * The one way a face logs a failure: our bugs as errors (with the cause), unavailable dependencies as warnings, one
 * per place and title every 10 s (an outage met by every request wrote a line per request).
 */
export function logFailure(logger: Logger, where: string, err: AppError): void {
  if (isInternal(err)) logger.error(`${where} failed`, err.cause ?? err);
  else if (err.status === 503 && err.cause !== undefined) {
    const gate = unavailableLines(`${where}\x1f${err.title}`);
    if (gate.write) logger.warn(`${where}: ${err.title} (${String(err.cause)})${heldNote(gate.held)}`);
  }
}
