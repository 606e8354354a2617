import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

/** The largest body each face reads; more is refused with 413 (README "Limits"). */
export const BODY_LIMITS = {
  /** REST `/v1/*`: the largest request (a settings PATCH, a 40-spec stats batch) is far smaller. */
  rest: 256 * 1024,
  /** tRPC `/trpc` (the dashboard). */
  trpc: 256 * 1024,
  /** MCP `/mcp`: a batch of 20 tool calls. */
  mcp: 1024 * 1024,
  /** One page report from the page script. */
  pageReport: 16 * 1024,
  /** One edge SDK batch of up to 500 request records. */
  requestBatch: 1024 * 1024,
} as const;

/**
 * An oversized body up to this size is read and thrown away, so the answer (413) reaches the client
 * and the keep-alive connection stays usable; past it the connection is closed after the answer.
 */
const DRAIN_MAX = 8 * 1024 * 1024;

function human(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}

function tooLarge(limit: number, close: boolean): AppError {
  return new AppError(413, `The body is too large: send at most ${human(limit)} per request`, {
    headers: close ? { Connection: 'close' } : {},
  });
}

/**
 * Reads a request body of at most `limit` bytes. Past it: 413, after draining what remains (up to
 * 8 MB) so the client reads the answer; a larger or declared-larger body is not read at all and the
 * answer closes the connection. Never destroys the request (that would drop the answer too).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > DRAIN_MAX) {
    req.pause();
    return Promise.reject(tooLarge(limit, true));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      if (size > DRAIN_MAX) {
        cleanup();
        req.pause();
        reject(tooLarge(limit, true));
      }
    };
    const onEnd = () => {
      cleanup();
      if (size > limit) reject(tooLarge(limit, false));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onError = () => {
      cleanup();
      reject(
        new AppError(400, 'The request body was cut off: send it again', { field: '(body)', headers: { Connection: 'close' } }),
      );
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}
