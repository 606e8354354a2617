import type { IncomingMessage } from 'node:http';
import { AppError } from '../../core/errors.ts';
import { BODY_LIMITS, readBody, utf8Body } from '../../core/http/body.ts';
import { refuseDeepInput } from '../../procedures/input-guard.ts';

/**
 * Reads a JSON request body: undefined when empty; 400 for non-JSON, non-UTF-8, malformed, non-object or too
 * deeply nested bodies; 413 past the limit.
 */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const raw = await readBody(req, BODY_LIMITS.rest);
  const type = req.headers['content-type'] ?? '';
  const text = utf8Body(raw, type);
  if (text === null)
    throw new AppError(400, 'Send the body as UTF-8 (Content-Type: application/json; charset=utf-8)', { field: '(body)' });
  if (text.trim() === '') return undefined;
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError(400, 'Send the body as JSON with Content-Type: application/json', { field: '(body)' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError(400, 'The body is not valid JSON: fix its syntax', { field: '(body)' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError(400, 'Send a JSON object as the body', { field: '(body)' });
  }
  refuseDeepInput(value);
  return value as Record<string, unknown>;
}
