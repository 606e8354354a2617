import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON request body: `{}` when empty; 400 for non-JSON, malformed or non-object bodies. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new AppError(400, 'The body is too large: send at most 1 MB', { field: '(body)' });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  const type = req.headers['content-type'] ?? '';
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
  return value as Record<string, unknown>;
}
