import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Koa from 'koa';
import type { Registry } from 'prom-client';
import { WEB_DIST } from './core/built-files.ts';
import type { Deps } from './core/deps.ts';
import { AppError } from './core/errors.ts';
import { answerClientErrors } from './core/http/client-error.ts';
import { echoRequestId, observeRequests } from './core/http/observe-requests.ts';
import { sendProblem } from './core/http/problem-response.ts';
import { servedOverHttps } from './core/http/security-headers.ts';
import { notServed, spaStatic } from './core/http/static.ts';
import { endAtTurnEnd, sendAtTurnEnd } from './core/http/turn-end.ts';
import { loadOnce } from './core/load-once.ts';
import { currentRequest, label } from './core/observe/request-scope.ts';
import { API_DOCS_PATH, apiDocsHandler } from './faces/api-docs.ts';
import { collectHandler } from './faces/collect/handler.ts';
import { collectLane } from './faces/collect/lane.ts';
import { downloadsHandler } from './faces/downloads.ts';
import { firstPartyHandler } from './faces/first-party.ts';
import { mcpHandler } from './faces/mcp/handler.ts';
import { metricsHandler, serverMetrics } from './faces/metrics.ts';
import { PROBLEM_TYPES_PREFIX, problemTypesHandler } from './faces/problem-types.ts';
import { proxyFace } from './faces/proxy/handler.ts';
import type { ProxyLimits } from './faces/proxy/limits.ts';
import { readinessOf } from './faces/readiness.ts';
import { restHandler } from './faces/rest/handler.ts';
import { buildOpenApi } from './faces/rest/openapi.ts';
import { scriptHandler } from './faces/script.ts';
import { sdkHandler } from './faces/sdk.ts';
import { trpcHandler } from './faces/trpc-handler.ts';
import { UPLOAD_PATH, UPLOAD_ROUTE, uploadsHandler } from './faces/uploads.ts';
import { billingWebhookHandler } from './features/billing/billing-webhook.ts';
import type { DownloadLimits } from './features/export/limits.ts';
import { TLS_ASK_PATH, tlsAskHandler } from './features/hostnames/index.ts';
import { challengeHandler } from './features/protection/challenge/handler.ts';
import { shareFrameAncestors } from './features/shares/embedding.ts';
import { listOperations } from './procedures/registry.ts';
import { appRouter } from './router.ts';

/** A `.well-known` segment anywhere in the path (RFC 8615 puts it first; faces below would answer others their own way). */
const WELL_KNOWN = /\/\.well-known(?:\/|$)/i;

type AppOptions = {
  webDist?: string;
  scriptDist?: string;
  /** The edge SDK's package folder (package.json and dist/), served at /sdk/edge@<version>/ (`faces/sdk.ts`). */
  edgeSdkDir?: string;
  /** Proxy mode's timeouts and limits, where a test needs them shorter (`faces/proxy/limits.ts`). */
  proxyLimits?: Partial<ProxyLimits>;
  /** Export downloads' idle and per-file time limits, where a test needs them shorter (`features/export/limits.ts`). */
  downloadLimits?: Partial<DownloadLimits> & { atOnceOnNode?: number };
};

/** The server, and what shutdown must do with it beside closing it. */
export type ServiceServer = Server & {
  /** Sends the proxy's waiting request records to the write buffer (before its last flush). */
  flushProxyRecords(): Promise<void>;
  /** This server's metrics read at each scrape (pools, backlog, hot store), for a METRICS_PORT server (`faces/metrics.ts`). */
  metrics: Registry;
};

/**
 * The service's HTTP server, not listening yet: proxy mode first (a request whose Host is a live proxy
 * hostname: `faces/proxy/`), then the collect lane (page reports and edge batches, answered without Koa:
 * `faces/collect/lane.ts`), then the Koa app for everything else. Each request is served in its own scope
 * (`core/http/observe-requests.ts`): its id is echoed and logged, and its access line and metrics written.
 */
export function createServer(deps: Deps, opts: AppOptions = {}): ServiceServer {
  // Every answer of the server is written at the end of its event-loop turn, together (`turn-end.ts`).
  const send = sendAtTurnEnd((err) => deps.logger.error('an answer could not be written', err));
  const collect = collectHandler(deps, send.after);
  const metrics = serverMetrics(deps);
  const koa = createApp(deps, collect, metrics, opts).callback();
  const lane = collectLane(deps, collect.answer, send);
  const service = (req: IncomingMessage, res: ServerResponse) => {
    echoRequestId(res);
    if (lane(req, res)) return;
    endAtTurnEnd(res, send);
    koa(req, res);
  };
  const proxy = proxyFace(deps, {
    protectedSite: collect.protectedSite,
    recordRequests: collect.recordRequests,
    send,
    next: service,
    limits: opts.proxyLimits,
  });
  const server = answerClientErrors(
    createHttpServer(
      observeRequests(deps, (req, res) => {
        if (proxy.take(req, res)) return;
        service(req, res);
      }),
    ),
  );
  server.once('close', () => {
    proxy.close().catch((e) => deps.logger.warn(`proxy: connections to origins not closed (${String(e)})`));
  });
  return Object.assign(server, { flushProxyRecords: proxy.flushRecords, metrics });
}

/** The Koa app: health, REST, OpenAPI, tRPC, MCP, the gate's routes and the dashboard. */
function createApp(deps: Deps, collect: ReturnType<typeof collectHandler>, metrics: Registry, opts: AppOptions) {
  const app = new Koa();
  app.proxy = deps.env.TRUST_PROXY;
  // Only the entries our own proxies appended: the left of X-Forwarded-For is whatever the client sent.
  app.maxIpsCount = deps.env.TRUST_PROXY_HOPS;
  const ops = listOperations(appRouter);
  /** The OpenAPI document's text, made when first asked for. */
  const openapiText = loadOnce(() => buildOpenApi(ops, `${deps.urls.base}`).then((doc) => JSON.stringify(doc)));
  const rest = restHandler(deps, ops);
  const trpc = trpcHandler(deps);
  const mcp = mcpHandler(deps, ops, { callsPerMinute: deps.env.MCP_CALLS_PER_MINUTE });
  const firstParty = firstPartyHandler(deps);
  const challenge = challengeHandler(deps);
  // The check page answers on /challenge and on the path of CHALLENGE_URL when that names another one.
  const challengePath = new URL(deps.urls.challenge).pathname.replace(/\/+$/, '') || '/challenge';
  const downloads = downloadsHandler(deps, opts.downloadLimits);
  const readiness = readinessOf(deps);
  const uploads = uploadsHandler(deps);
  const billingWebhook = billingWebhookHandler(deps);
  const script = scriptHandler((key, ctx) => collect.scriptFeaturesOf(key, ctx.ip), opts.scriptDist);
  const sdk = sdkHandler(opts.edgeSdkDir);
  const spa = spaStatic(opts.webDist ?? WEB_DIST, {
    https: (ctx) => servedOverHttps(ctx, deps.urls.app),
    frameAncestors: (ctx) => shareFrameAncestors(deps, ctx.path, ctx.ip),
  });
  const apiDocs = apiDocsHandler(deps);
  const problemTypes = problemTypesHandler();
  const tlsAsk = tlsAskHandler(deps);
  const metricsRoute = metricsHandler(deps, metrics);

  // Errors Koa itself meets while sending (a stream body failing): logged here rather than printed, and a
  // client that went away mid-download is no error of ours. Paths are named by their route template (a
  // download's path is its credential). Koa answers a thrown error with only the error's `headers`: the
  // request id goes there.
  app.on('error', (err: Error & { code?: string; headers?: Record<string, string> }, ctx?: { method: string }) => {
    const scope = currentRequest();
    if (scope) err.headers = { ...err.headers, 'X-Request-Id': scope.id };
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
    const where = ctx && scope ? `${ctx.method} ${scope.route}` : 'a response';
    deps.logger.error(`${where} failed while sending`, err);
  });

  app.use(async (ctx) => {
    const p = ctx.path;
    if (deps.lifecycle.draining && p !== '/healthz') {
      // Shutting down: requests already running finish; new ones go to another node (or retry).
      label('other', '(draining)', 'draining');
      ctx.set('Connection', 'close');
      return sendProblem(ctx, new AppError(503, 'This server is restarting: try again in a moment', { retryAfter: 1 }));
    }
    // Each branch names its route template and operation for the access line and the metrics (the REST, tRPC
    // and MCP faces name the operation they serve themselves).
    if (p === '/healthz') {
      label('health', p, 'healthz');
      ctx.body = { status: 'ok' };
      return;
    }
    if (p === '/readyz') {
      label('health', p, 'readyz');
      const { ready, body } = await readiness();
      // A node is ready while it runs (draining answers 503 above); `?strict` also needs the database and hot store.
      ctx.status = ready || ctx.query.strict === undefined ? 200 : 503;
      ctx.body = body;
      return;
    }
    if (p === '/metrics') {
      label('metrics', p, 'metrics');
      return metricsRoute(ctx);
    }
    // The service publishes no `/.well-known/` document (MCP discovery is the `server/discover` method; tokens
    // are not OAuth): under any face such a path is a 404 problem, never a route's own kind of answer.
    if (WELL_KNOWN.test(p)) {
      label('dashboard', '/.well-known/*', 'well-known');
      return notServed(ctx);
    }
    if (p === '/v1/openapi.json') {
      label('rest', p, 'openapi');
      // Read only, as every other route answers a method it does not take (it answered a DELETE with the document).
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.set('Allow', 'GET, HEAD');
        return sendProblem(ctx, new AppError(404, 'The OpenAPI document is read with GET'));
      }
      ctx.type = 'application/json';
      ctx.body = await openapiText();
      return;
    }
    // Export files: the link is the credential, and the body a stream rather than JSON.
    if (p.startsWith('/v1/downloads/')) {
      label('downloads', '/v1/downloads/{token}', 'downloads');
      return downloads(ctx);
    }
    // Import files: the body is a stream of CSV, stored as it comes (faces/uploads.ts).
    if (UPLOAD_PATH.test(p)) {
      label('rest', UPLOAD_ROUTE, 'imports.upload');
      return uploads(ctx);
    }
    if (p === API_DOCS_PATH || p.startsWith(`${API_DOCS_PATH}/`)) {
      label('docs', `${API_DOCS_PATH}/*`, 'api-docs');
      return apiDocs(ctx);
    }
    // Payment provider events: the signature over the raw body is the credential.
    if (p === '/v1/billing/webhook') {
      label('rest', p, 'billing.webhook');
      return billingWebhook(ctx);
    }
    if (p === '/v1' || p.startsWith('/v1/')) return rest(ctx);
    if (p === '/trpc' || p.startsWith('/trpc/')) return trpc(ctx);
    if (p === '/mcp') return mcp(ctx);
    if (
      p === '/collect' ||
      p === '/collect/requests' ||
      p === '/collect/protection' ||
      p === '/collect/decide' ||
      p === '/collect/verify'
    ) {
      label('collect', p, p.slice(1).replace('/', '.'));
      return collect.koa(ctx);
    }
    if (p.startsWith('/_us/')) {
      label('first-party', '/_us/*', 'first-party');
      return firstParty(ctx);
    }
    // Caddy's on-demand TLS asks here before getting a certificate for a customer's hostname.
    if (p === TLS_ASK_PATH) {
      label('ingress', p, 'tls-ask');
      return tlsAsk(ctx);
    }
    // What a problem's `type` points at; the dashboard has no route under /problems/.
    if (p.startsWith(PROBLEM_TYPES_PREFIX)) {
      label('docs', `${PROBLEM_TYPES_PREFIX}{type}`, 'problem-types');
      return problemTypes(ctx);
    }
    if (p === '/challenge' || p === challengePath) {
      label('challenge', '/challenge', 'challenge');
      return challenge(ctx);
    }
    label('dashboard', '(dashboard)', 'dashboard');
    // What no route takes (a POST to a dashboard address, a `/.well-known/` document): a 404 problem.
    const nothing = async () => notServed(ctx);
    if (p.startsWith('/script/')) {
      label('script', '/script/{siteKey}.js', 'site-script');
      return script(ctx, nothing);
    }
    if (p.startsWith('/script.')) {
      label('script', '/script.*', 'script');
      return script(ctx, () => spa(ctx, nothing));
    }
    // The edge SDK's built files, for runtimes that import by URL (npm has the same files).
    if (p.startsWith('/sdk/')) {
      label('sdk', '/sdk/edge@{version}/*', 'sdk');
      return sdk(ctx, () => spa(ctx, nothing));
    }
    return spa(ctx, nothing);
  });
  return app;
}
