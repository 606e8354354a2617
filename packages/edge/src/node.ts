/**
 * The gate ready-made for Node servers: Express/Connect middleware `(req, res, next)`, usable from a bare
 * `node:http` handler too. Per request: `/_us/*` goes to the service (the check's way back, `/_us/pass`, sets
 * `us_pass` there); every other request is decided by `protect()`; a refused or redirected one is answered
 * here, a served one goes on to `next()` and is recorded with its status when its response finishes. Records
 * are batched (`records.ts`); `flush()` sends what is queued (call it on shutdown). No dependencies: requests
 * and responses are used through the few members Node's own have.
 */
import { isServicePath, type ProtectInput, protect } from './protect.ts';
import { proxyHeaders, SECRET_HEADERS, serviceCookieHeader } from './proxy-headers.ts';
import { DEFAULT_COLLECT_URL, flushRecords } from './records.ts';

// `@unseen-stats/edge/node`: all a Node server needs, without the bot catalogue the worker entry carries.
export type { DecideRequest, ProtectInput, ProtectVerdict } from './protect.ts';
export { protect } from './protect.ts';
export type { ProxyHeadersInput } from './proxy-headers.ts';
export { proxyHeaders } from './proxy-headers.ts';
export type { RequestBatch, RequestRecord } from './records.ts';
export { DEFAULT_COLLECT_URL, flushRecords } from './records.ts';

/** What the middleware reads of a request: Node's `IncomingMessage` (and Express's request) have all of it. */
export interface NodeRequestLike {
  method?: string;
  url?: string;
  /** Express: the URL before routers cut it. */
  originalUrl?: string;
  /** Express: the visitor's address (behind a load balancer with `trust proxy` set). */
  ip?: string;
  /** Express: the hostname (with `trust proxy`, from X-Forwarded-Host). */
  hostname?: string;
  /** Express: `http` or `https` (with `trust proxy`, from X-Forwarded-Proto). */
  protocol?: string;
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string; encrypted?: boolean } | null;
  [Symbol.asyncIterator]?(): AsyncIterator<unknown>;
}

/** What the middleware uses of a response: Node's `ServerResponse` has all of it. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string | string[]): unknown;
  end(body?: string | Uint8Array): unknown;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

export interface ProtectMiddlewareOptions {
  /** The site's server secret (`sk_live_…`). */
  secret: string;
  /** The site's public key (`pk_…`): records are sent with it. */
  key: string;
  /** Collect URL (default `https://collect.unseen.example/collect`). */
  collectUrl?: string;
  /** Where `/_us/*` is forwarded; default: the origin of the collect URL. */
  serviceOrigin?: string;
  /** Forward `/_us/*` to the service (default true). */
  forwardServicePaths?: boolean;
  /** How long a request waits for its decision (default 50 ms); past it, it is served. */
  budgetMs?: number;
  /** Send records when this many are queued (default 20, at most 500). */
  batchSize?: number;
  /** Send records when the oldest queued is older than this (default 2000 ms). */
  flushAfterMs?: number;
  /** The visitor's address; default Express's `req.ip`, else the connection's remote address. */
  clientIp?(req: NodeRequestLike): string | null | undefined;
  /** What your load balancer or CDN tells about the request. */
  facts?(req: NodeRequestLike): Pick<ProtectInput, 'country' | 'asn' | 'tls' | 'verifiedBot'>;
}

export type ProtectMiddleware = ((
  req: NodeRequestLike,
  res: NodeResponseLike,
  next: (err?: unknown) => void,
) => Promise<void>) & {
  /** Sends every queued record now; resolves when the sends are done (call it before the process exits). */
  flush(): Promise<void>;
};

/** Headers that belong to one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  // Node's fetch decodes the answer itself: ask for it plain.
  'accept-encoding',
  'content-encoding',
]);
/** The largest body forwarded to `/_us/*` (the service's own paths take small forms at most). */
const SERVICE_BODY_LIMIT = 64 * 1024;
const SERVICE_TIMEOUT_MS = 10_000;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

/** The Node middleware: `app.use(protectMiddleware({ secret, key, collectUrl }))`. */
export function protectMiddleware(options: ProtectMiddlewareOptions): ProtectMiddleware {
  const collectUrl = options.collectUrl || DEFAULT_COLLECT_URL;
  const forward = options.forwardServicePaths ?? true;
  let serviceOrigin: string | undefined;
  try {
    serviceOrigin = new URL(options.serviceOrigin || collectUrl).origin;
  } catch {
    serviceOrigin = undefined;
  }

  const gate = async (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void) => {
    let verdict: Awaited<ReturnType<typeof protect>>;
    try {
      const url = req.originalUrl ?? req.url ?? '/';
      const ip = options.clientIp ? options.clientIp(req) : (req.ip ?? req.socket?.remoteAddress);
      const host = typeof req.hostname === 'string' && req.hostname ? req.hostname : first(req.headers.host);
      const facts = options.facts?.(req) ?? {};
      // Forwarded with the site's secret only when the resolved path is the service's own: `/_us/../collect/…`
      // resolves (in fetch as at the origin) to a route of the service that answers the site's secret.
      const target = new URL(url, 'http://origin.invalid');
      if (forward && serviceOrigin && isServicePath(target.pathname)) {
        const forwarded = target.pathname + target.search;
        await forwardToService(req, res, { url: forwarded, host, ip, serviceOrigin, secret: options.secret, facts });
        return;
      }
      verdict = await protect({
        secret: options.secret,
        key: options.key,
        collectUrl,
        ip,
        method: req.method ?? 'GET',
        url,
        host,
        headers: req.headers,
        budgetMs: options.budgetMs,
        batchSize: options.batchSize,
        flushAfterMs: options.flushAfterMs,
        ...facts,
      });
    } catch {
      // Fail open: a facts or address callback that throws serves the request.
      next();
      return;
    }
    if (verdict.do === 'serve') {
      const record = verdict.done;
      const done = () => record(res.statusCode);
      res.once('finish', done);
      // A response cut short (the visitor left) is recorded with the status it had.
      res.once('close', done);
      next();
      return;
    }
    res.statusCode = verdict.status;
    for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
    res.end(verdict.do === 'refuse' && req.method !== 'HEAD' ? verdict.body : undefined);
  };
  return Object.assign(gate, { flush: flushRecords });
}

/**
 * `/_us/*` to the service with the customer's hostname in `x-forwarded-host` and the visitor vouched for with
 * the secret (`proxyHeaders`); redirects not followed, so `Location` and `Set-Cookie` reach the browser.
 * Never decided, never recorded (a challenge must be able to come back). 502 when the service cannot answer.
 */
async function forwardToService(
  req: NodeRequestLike,
  res: NodeResponseLike,
  o: {
    url: string;
    host: string;
    ip: string | null | undefined;
    serviceOrigin: string;
    secret: string;
    facts: Pick<ProtectInput, 'country' | 'asn'>;
  },
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-svc-') || SECRET_HEADERS.has(name)) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const cookie = serviceCookieHeader(Array.isArray(req.headers.cookie) ? req.headers.cookie.join('; ') : req.headers.cookie);
    if (cookie) headers.cookie = cookie;
    headers['x-forwarded-host'] = o.host;
    headers['x-forwarded-proto'] = req.protocol ?? (req.socket?.encrypted ? 'https' : 'http');
    Object.assign(headers, proxyHeaders({ secret: o.secret, clientIp: o.ip, country: o.facts.country, asn: o.facts.asn }));
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (method !== 'GET' && method !== 'HEAD' && req[Symbol.asyncIterator]) {
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Uint8Array | string>) {
        const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
        size += bytes.byteLength;
        if (size > SERVICE_BODY_LIMIT) {
          res.statusCode = 413;
          res.end();
          return;
        }
        chunks.push(bytes);
      }
      body = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        body.set(c, at);
        at += c.byteLength;
      }
    }
    const upstream = await fetch(new URL(o.url, o.serviceOrigin), {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
    });
    const answer = new Uint8Array(await upstream.arrayBuffer());
    res.statusCode = upstream.status;
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'set-cookie') res.setHeader(name, value);
    });
    const cookies = upstream.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    res.end(method === 'HEAD' ? undefined : answer);
  } catch {
    res.statusCode = 502;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.end('The protection service could not be reached. Please try again.\n');
  }
}
