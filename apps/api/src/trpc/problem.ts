import { TRPCError } from '@trpc/server';
import { ZodError, type z } from 'zod';
import { AppError } from '../errors.ts';

/** `['scopes', 2]` → `scopes[2]`; `['botWindows', 1, 'from']` → `botWindows[1].from`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === 'number') return `${acc}[${part}]`;
    return acc ? `${acc}.${String(part)}` : String(part);
  }, '');
}

function issueToError(issue: z.core.$ZodIssue): AppError {
  const base = fieldPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const field = base ? `${base}.${key}` : key;
    return new AppError(400, `Remove the field ${field}: it is not part of this request`, { field });
  }
  const field = base || '(body)';
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new AppError(400, `${field} is required: add it to the request`, { field });
  }
  return new AppError(400, `Fix ${field}: ${issue.message}`, { field });
}

/** Any error a procedure or the framework threw, as the one error type. Unknown errors become 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return issueToError(err.issues[0] as z.core.$ZodIssue);
  if (err instanceof TRPCError) {
    const cause = err.cause;
    if (cause instanceof AppError) return cause;
    if (cause instanceof ZodError) {
      // Output validation failing is our bug, not the caller's.
      if (err.code === 'INTERNAL_SERVER_ERROR') return internal();
      return issueToError(cause.issues[0] as z.core.$ZodIssue);
    }
    if (err.code === 'PARSE_ERROR') return new AppError(400, 'Send a valid JSON body', { field: '(body)' });
    if (err.code === 'BAD_REQUEST') return new AppError(400, err.message, { field: '(body)' });
    if (err.code === 'NOT_FOUND') return new AppError(404, 'No such route: check the method and path');
    if (err.code === 'METHOD_NOT_SUPPORTED') return new AppError(404, 'No such route: check the method and path');
  }
  return internal();
}

const internal = () => new AppError(500, 'Something went wrong on our side: try again in a moment');

/** Our own failures, worth an error log; a deliberate 503 (a dependency is down) is not one. */
export function isInternal(err: AppError) {
  return err.status === 500;
}
