import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';

/**
 * What the collect stages read of a request and write of its answer. A Koa context has all of it (the
 * gate's routes and any request Koa routes here); so does the lane's own `LaneExchange`, which answers the
 * page script and the edge SDK straight from Node's http server (see `lane.ts`).
 */
export interface CollectExchange {
  readonly req: IncomingMessage;
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** The client's address: the connection's, or the one trusted proxies name (as Koa's `ctx.ip`). */
  readonly ip: string;
  /** A request header by name, '' when absent (as Koa's `ctx.get`). */
  get(header: string): string;
  set(header: string, value: string): void;
  status: number;
  /** '' or a string (sent as is), an object (sent as JSON), or nothing (the status's own text). */
  body: unknown;
  /** The whole Content-Type header value, when the body's default is not the right one. */
  type: string;
}

/** Statuses whose answer has no body (as Koa strips it). */
const EMPTY = new Set([204, 205, 304]);

export interface ProxyTrust {
  /** Whether X-Forwarded-For is read at all (TRUST_PROXY). */
  trust: boolean;
  /** How many of its right-most entries our own proxies appended (TRUST_PROXY_HOPS; 0 = every entry). */
  hops: number;
}

/**
 * The client's address as Koa's `ctx.ip` gives it for `app.proxy = trust` and `app.maxIpsCount = hops`:
 * the left-most of the X-Forwarded-For entries kept, else the connection's address.
 */
export function clientAddress(req: IncomingMessage, proxy: ProxyTrust): string {
  const header = proxy.trust ? req.headers['x-forwarded-for'] : undefined;
  const forwarded = Array.isArray(header) ? header.join(',') : header;
  if (forwarded) {
    let ips = forwarded.split(',').map((ip) => ip.trim());
    if (proxy.hops > 0) ips = ips.slice(-proxy.hops);
    if (ips[0]) return ips[0];
  }
  return req.socket.remoteAddress || '';
}

/** One collect request answered without Koa: headers are gathered, then written with the body in `send`. */
export class LaneExchange implements CollectExchange {
  status = 404;
  body: unknown = undefined;
  type = '';
  readonly method: string;
  private readonly headers: Record<string, string> = {};
  private address: string | undefined;

  constructor(
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly path: string,
    private readonly proxy: ProxyTrust,
  ) {
    this.method = req.method ?? 'GET';
  }

  get ip(): string {
    this.address ??= clientAddress(this.req, this.proxy);
    return this.address;
  }

  get(header: string): string {
    const v = this.req.headers[header.toLowerCase()];
    return typeof v === 'string' ? v : Array.isArray(v) ? v.join(', ') : '';
  }

  set(header: string, value: string) {
    this.headers[header] = value;
  }

  /** Writes the answer the way Koa would for the same status, headers and body (not to a client that left). */
  send() {
    if (this.res.writableEnded || this.res.socket?.writable === false) return;
    if (EMPTY.has(this.status)) {
      this.res.writeHead(this.status, this.headers);
      this.res.end();
      return;
    }
    let body: string;
    let type = this.type;
    if (this.body == null) {
      body = STATUS_CODES[this.status] ?? String(this.status);
      type ||= 'text/plain; charset=utf-8';
    } else if (typeof this.body === 'string') {
      body = this.body;
      type ||= 'text/plain; charset=utf-8';
    } else {
      body = JSON.stringify(this.body);
      type ||= 'application/json; charset=utf-8';
    }
    this.headers['Content-Type'] = type;
    this.headers['Content-Length'] = String(Buffer.byteLength(body));
    this.res.writeHead(this.status, this.headers);
    this.res.end(body);
  }
}
