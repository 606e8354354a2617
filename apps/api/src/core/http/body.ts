import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

/** The largest body each face reads; more is refused with 413 (docs/api/limits.md, "Limits of every face"). */
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
  return new Promise((resolve, reject) => new BodyRead(req, limit, resolve, reject).listen());
}

/**
 * One body being read. Its listeners are methods bound once per body rather than closures named in `readBody`: the
 * TypeScript loader (tsx) keeps each named closure's name with a property definition each time the closure is
 * made, a cost that showed in the collect lane's profile (docs/performance/history.md,
 * "Answers at the end of the turn").
 */
class BodyRead {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.end.bind(this);
  private readonly onError = this.error.bind(this);

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: AppError) => void,
  ) {}

  listen() {
    this.req.on('data', this.onData);
    this.req.on('end', this.onEnd);
    this.req.on('error', this.onError);
    this.req.on('aborted', this.onError);
  }

  private cleanup() {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
    this.req.off('aborted', this.onError);
  }

  private data(chunk: Buffer) {
    this.size += chunk.length;
    if (this.size <= this.limit) {
      this.chunks.push(chunk);
      return;
    }
    this.chunks.length = 0;
    if (this.size > DRAIN_MAX) {
      this.cleanup();
      this.req.pause();
      this.reject(tooLarge(this.limit, true));
    }
  }

  private end() {
    this.cleanup();
    if (this.size > this.limit) this.reject(tooLarge(this.limit, false));
    else this.resolve(this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks));
  }

  private error() {
    this.cleanup();
    this.reject(
      new AppError(400, 'The request body was cut off: send it again', { field: '(body)', headers: { Connection: 'close' } }),
    );
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON body's text, or null when it is not UTF-8: its Content-Type names another charset, or its bytes are not
 * UTF-8. (Decoded leniently, "Café" sent as ISO-8859-1 was stored as "Caf\uFFFD" and answered 200.)
 */
export function utf8Body(raw: Buffer, contentType: string | undefined): string | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return null;
  try {
    return UTF8.decode(raw);
  } catch {
    return null;
  }
}
