import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SiteHostname } from '@us/db';
import type { BotSettings } from '@us/shared';
import { bumpSitesGeneration } from '../../src/core/hot/generations.ts';
import { gateSite } from './gate.ts';
import type { TestServer } from './server.ts';

/** One request as a real origin server on 127.0.0.1 received it. */
export interface OriginRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body, for requests the default answer read whole. */
  body: string;
}

/**
 * A real origin server on 127.0.0.1. It remembers every request it got (`seen`) and answers with `handle`,
 * by default: read the body, then 200 `text/html` "origin <method> <url>" with an `x-origin` header.
 */
export async function startOrigin() {
  const seen: OriginRequest[] = [];
  const byDefault = (req: IncomingMessage, res: ServerResponse, entry: OriginRequest) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      entry.body = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-origin': 'yes' });
      res.end(`origin ${req.method} ${req.url}`);
    });
  };
  const state = { handle: byDefault };
  const server = createServer((req, res) => {
    const entry: OriginRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' };
    seen.push(entry);
    state.handle(req, res, entry);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    /** Requests for `path` (with its query) the origin got. */
    got: (path: string) => seen.filter((s) => s.url === path),
    /** Answers from now on with `handle` (`byDefault` is the default answer, for handlers that only watch). */
    answer(handle: (req: IncomingMessage, res: ServerResponse, entry: OriginRequest) => void) {
      state.handle = handle;
    },
    reset() {
      state.handle = byDefault;
    },
    byDefault,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
export type Origin = Awaited<ReturnType<typeof startOrigin>>;

/**
 * Factory: a gate-ready site (`gateSite`: secret, bot settings, owner token) whose hostname is a live
 * proxy-mode hostname forwarding to `origin`, as a hostname is once its proxy setup is complete.
 */
export async function proxySite(t: TestServer, hostname: string, origin: string, bot: Partial<BotSettings> = {}) {
  const site = await gateSite(t, hostname, bot);
  await t.deps.orm.em
    .fork()
    .nativeUpdate(
      SiteHostname,
      { site: site.siteId, hostname },
      { proxy: true, origin, edgeStatus: 'active', verifiedAt: new Date() },
    );
  await bumpSitesGeneration(t.deps.hot);
  return site;
}

export interface ProxyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request to the service with `Host: host`, as the TLS ingress in front of it forwards a visitor's:
 * `from` is the visitor's address (X-Forwarded-For, trusted with TRUST_PROXY) and X-Forwarded-Proto is https.
 * Raw headers as given (Node's client adds only Host and framing).
 */
export function viaProxy(
  t: Pick<TestServer, 'url'>,
  host: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer; from?: string } = {},
): Promise<ProxyAnswer> {
  const target = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: opts.method ?? 'GET',
        path,
        agent: false,
        headers: {
          host,
          'user-agent': BROWSER,
          'x-forwarded-for': opts.from ?? '198.51.100.20',
          'x-forwarded-proto': 'https',
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The request rows stored for a site, oldest first (after a flush of the write buffer). */
export async function storedRequests(t: TestServer, siteId: string) {
  await t.deps.ingest.flushNow();
  return (await t.deps.orm.em
    .fork()
    .execute(
      `select path, method, status, decision, reason, risk, duration_ms from requests where site_id = ? order by at, path`,
      [siteId],
    )) as {
    path: string;
    method: string;
    status: number;
    decision: string;
    reason: string;
    risk: number | null;
    duration_ms: number;
  }[];
}
