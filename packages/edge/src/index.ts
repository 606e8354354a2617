/**
 * Edge worker SDK: wraps a Workers fetch handler, decides per request whether to serve, challenge or refuse it
 * (the bot-protection gate, `gate.ts`), records one request record per request after the response and sends
 * them in batches to `POST {collectUrl}/requests`. No runtime dependency besides the bot catalogue; fails open.
 */
import {
  challengeLocation,
  configFor,
  decideRequest,
  type GateOutcome,
  type IncomingCf,
  type LoadedConfig,
  tlsClassOf,
} from './gate.ts';
import {
  ALWAYS_SERVED_PATHS,
  isNavigation,
  isServicePath,
  noReturnReason,
  type RefusalKind,
  refusalPage,
  sendsGpc,
} from './protect.ts';
import { proxyHeaders, SECRET_HEADERS, serviceCookieHeader } from './proxy-headers.ts';
import { batchTiming, cut, DEFAULT_COLLECT_URL, enqueueRecord, joinUrl, type RequestRecord } from './records.ts';

export type { GateOutcome, IncomingCf, LoadedConfig, ProtectionConfig } from './gate.ts';
export { isModernBrowser, loadConfig, resetConfigCache, tlsClassOf, verificationOf } from './gate.ts';
export type { ProtectMiddleware, ProtectMiddlewareOptions } from './node.ts';
export { protectMiddleware } from './node.ts';
export type { DecideRequest, ProtectInput, ProtectVerdict, RefusalKind } from './protect.ts';
export { isNavigation, noReturnReason, passCookie, protect, refusalPage, sendsGpc } from './protect.ts';
export type { ProxyHeadersInput } from './proxy-headers.ts';
export { proxyHeaders } from './proxy-headers.ts';
export type { RequestBatch, RequestRecord } from './records.ts';
export { DEFAULT_COLLECT_URL, flushRecords } from './records.ts';

/** How long a request that finds no protection config waits for it before it is served. */
export const DEFAULT_CONFIG_BUDGET_MS = 50;

/** Bindings the SDK reads. */
export interface UnseenEnv {
  /** Server secret `sk_live_…` (worker secret). */
  SVC_SECRET?: string;
  /** Public site key `pk_…`. */
  SVC_SITE_KEY?: string;
  /** Overrides the collect URL (wins over the option). */
  SVC_COLLECT_URL?: string;
}

/** The part of the Workers ExecutionContext the SDK uses. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

export type FetchHandler<E> = (request: Request, env: E, ctx: ExecutionContextLike) => Response | Promise<Response>;

/** A Workers module handler (the subset we produce). */
export interface UnseenExportedHandler<E> {
  fetch: (request: Request, env: E, ctx: ExecutionContextLike) => Promise<Response>;
}

export interface UnseenOptions {
  /** Collect URL (default `https://collect.unseen.example/collect`); `env.SVC_COLLECT_URL` wins when set. */
  collectUrl?: string;
  /** Where `/_us/*` is forwarded; default: the origin of the collect URL. */
  serviceOrigin?: string;
  /** Send when this many records are queued (default 20, at most 500). */
  batchSize?: number;
  /** Send when the oldest queued record is older than this, checked on each request (default 2000 ms). */
  flushAfterMs?: number;
  /** Forward `/_us/*` on the customer's hostname to the service (default true). */
  forwardServicePaths?: boolean;
  /** Return false to leave a request out of the records (default: record everything). */
  shouldRecord?: (request: Request) => boolean;
  /** Decide per request with the site's protection config (default true); false: record only, decide nothing. */
  protection?: boolean;
  /**
   * How long a request that finds no protection config in the isolate waits for it (default 50 ms, at most
   * 1000); past it the request is served and the fetch finishes in the background.
   */
  configBudgetMs?: number;
  /** How long a background config fetch may take before it is abandoned (default 5000 ms). */
  configTimeoutMs?: number;
}

let warnedMissingConfig = false;

function buildRecord(
  request: Request,
  response: Response,
  at: number,
  ms: number,
  gate: GateOutcome,
  tlsClass: string | undefined,
): RequestRecord | undefined {
  const status = response.status;
  if (!Number.isInteger(status) || status < 100 || status > 599) return undefined;
  const url = new URL(request.url);
  const cf = ((request as Request & { cf?: IncomingCf }).cf ?? {}) as IncomingCf;
  const record: RequestRecord = {
    at,
    method: request.method.slice(0, 16),
    path: url.pathname.slice(0, 2048),
    status,
    ms: Math.min(600_000, Math.max(0, Math.round(ms))),
  };
  const cache = cut(response.headers.get('cf-cache-status'), 32);
  if (cache) record.cache = cache;
  const ip = cut(request.headers.get('cf-connecting-ip'), 64);
  if (ip) record.ip = ip;
  const ua = cut(request.headers.get('user-agent'), 1024);
  if (ua) record.ua = ua;
  if (typeof cf.country === 'string' && cf.country.length === 2) record.country = cf.country;
  if (typeof cf.asn === 'number' && Number.isInteger(cf.asn) && cf.asn >= 0) record.asn = cf.asn;
  const asOrg = typeof cf.asOrganization === 'string' ? cut(cf.asOrganization, 256) : undefined;
  if (asOrg) record.asOrg = asOrg;
  const bm = cf.botManagement;
  if (bm && typeof bm.verifiedBot === 'boolean') record.verifiedBot = bm.verifiedBot || !!cf.verifiedBotCategory;
  else if (typeof cf.verifiedBotCategory === 'string') record.verifiedBot = cf.verifiedBotCategory !== '';
  if (bm && typeof bm.score === 'number' && Number.isFinite(bm.score)) {
    record.botScore = Math.min(100, Math.max(0, Math.round(bm.score)));
  }
  const tls = typeof cf.tlsVersion === 'string' ? cut(cf.tlsVersion, 32) : undefined;
  if (tls) record.tls = tls;
  record.action = gate.action;
  record.reason = gate.reason.slice(0, 256);
  if (gate.risk !== undefined) record.risk = gate.risk;
  if (tlsClass) record.tlsClass = tlsClass;
  return record;
}

/** How long a `/_us/*` request waits for the service (as the Node middleware's). */
const SERVICE_TIMEOUT_MS = 10_000;

/**
 * `/_us/*` passed on to the service; a 502 page when it cannot answer in time (a failed fetch escaped the handler to
 * the platform's error page, and one that hung held the visitor).
 */
async function forwardToService(request: Request, serviceOrigin: string, secret: string): Promise<Response> {
  const incoming = new URL(request.url);
  const target = new URL(incoming.pathname + incoming.search, serviceOrigin);
  const headers = new Headers(request.headers);
  for (const name of [...headers.keys()]) {
    if (name.startsWith('x-svc-') || SECRET_HEADERS.has(name)) headers.delete(name);
  }
  const cookie = serviceCookieHeader(request.headers.get('cookie'));
  if (cookie) headers.set('cookie', cookie);
  headers.set('x-forwarded-host', incoming.host);
  headers.set('x-forwarded-proto', incoming.protocol.replace(':', ''));
  const cf = ((request as Request & { cf?: IncomingCf }).cf ?? {}) as IncomingCf;
  const extra = proxyHeaders({
    secret,
    clientIp: request.headers.get('cf-connecting-ip'),
    country: cf.country,
    asn: cf.asn,
    asOrg: cf.asOrganization,
  });
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  try {
    return await fetch(target.toString(), {
      method: request.method,
      headers,
      body: hasBody ? request.body : null,
      redirect: 'manual',
      signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
    });
  } catch {
    return new Response('The protection service could not be reached. Please try again.\n', {
      status: 502,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
    });
  }
}

/**
 * Wraps a Workers fetch handler (or, without one, passes requests to the origin with `fetch(request)`): forwards
 * `/_us/*` to the service, decides every other request with the site's protection config before the origin is
 * called (serve, send to the check page, or refuse; served whenever the gate cannot answer in time), and records
 * each request with its decision after the response.
 */
export function withUnseen<E extends UnseenEnv = UnseenEnv>(
  handler?: FetchHandler<E> | null,
  options: UnseenOptions = {},
): UnseenExportedHandler<E> {
  const timing = batchTiming(options);
  const forwardServicePaths = options.forwardServicePaths ?? true;
  const protection = options.protection ?? true;
  const configBudgetMs = Math.min(1000, Math.max(0, options.configBudgetMs ?? DEFAULT_CONFIG_BUDGET_MS));
  const configTimeoutMs = Math.min(30_000, Math.max(100, options.configTimeoutMs ?? 5000));
  const inner: FetchHandler<E> = handler ?? ((request) => fetch(request));

  return {
    async fetch(request, env, ctx) {
      const secret = env?.SVC_SECRET;
      const key = env?.SVC_SITE_KEY;
      if (!secret || !key) {
        if (!warnedMissingConfig) {
          warnedMissingConfig = true;
          console.warn('unseen: SVC_SECRET or SVC_SITE_KEY is not set; requests pass through unrecorded');
        }
        return inner(request, env, ctx);
      }

      let collectUrl = DEFAULT_COLLECT_URL;
      let serviceOrigin: string | undefined;
      let url: URL;
      try {
        collectUrl = env.SVC_COLLECT_URL || options.collectUrl || DEFAULT_COLLECT_URL;
        serviceOrigin = options.serviceOrigin ? new URL(options.serviceOrigin).origin : new URL(collectUrl).origin;
        url = new URL(request.url);
      } catch {
        // a malformed URL option: pass through without recording
        return inner(request, env, ctx);
      }
      const path = url.pathname;

      if (forwardServicePaths && serviceOrigin && isServicePath(path)) {
        return forwardToService(request, serviceOrigin, secret);
      }

      const at = Date.now();
      let record: boolean;
      try {
        // Global Privacy Control: decided like any other request, never recorded (spec §1).
        record = !sendsGpc(request.headers.get('sec-gpc')) && (options.shouldRecord?.(request) ?? true) !== false;
      } catch {
        record = true;
      }

      // The gate: decide before the origin. Anything going wrong here serves the request (fail open).
      const cf = ((request as Request & { cf?: IncomingCf }).cf ?? {}) as IncomingCf;
      let tlsClass: string | undefined;
      let gate: GateOutcome = { action: 'allow', reason: 'off: protection disabled in the worker' };
      let refusal: Response | undefined;
      let noReturnHost: string | undefined;
      try {
        tlsClass = tlsClassOf(cf.tlsVersion, cf.tlsCipher, url.protocol);
        if (!protection) {
          // decide nothing
        } else if (ALWAYS_SERVED_PATHS.has(path)) {
          gate = { action: 'allow', reason: `always served: ${path}` };
        } else if (isServicePath(path)) {
          gate = { action: 'allow', reason: 'the service’s own path' };
        } else {
          const got = await configFor(
            { endpoint: joinUrl(collectUrl, '/protection'), secret, budgetMs: configBudgetMs, timeoutMs: configTimeoutMs },
            ctx,
          );
          if ('problem' in got) gate = { action: 'allow', reason: `fail open: ${got.problem}` };
          else if (got.config.mode === 'off') gate = { action: 'allow', reason: 'off: protection is off' };
          else {
            const decision = await decideRequest({ url, headers: request.headers, cf, tlsClass }, got.config);
            gate = { action: decision.action, reason: decision.reason, risk: decision.risk };
            if (decision.action !== 'allow') {
              refusal = await act(request, url, got.config, decision.action, decision.risk);
              if (!refusal)
                gate = { ...gate, action: 'allow', reason: `fail open: cannot challenge (no check page): ${gate.reason}` };
              else if (decision.action === 'challenge' && !got.config.hosts.has(url.hostname.toLowerCase())) {
                // The same answer and reason as the decide endpoint's; the hostname goes to the service apart.
                gate = { ...gate, reason: noReturnReason(gate.reason) };
                noReturnHost = url.hostname.toLowerCase();
              }
            }
          }
        }
      } catch (e) {
        gate = { action: 'allow', reason: `fail open: the gate failed (${e instanceof Error ? e.name : 'error'})` };
        refusal = undefined;
        noReturnHost = undefined;
      }

      // Let the handler's own outcome (response or exception) reach the visitor unchanged.
      const response = refusal ?? (await inner(request, env, ctx));

      if (record) {
        try {
          const entry = buildRecord(request, response, at, Date.now() - at, gate, tlsClass);
          if (entry) {
            if (noReturnHost) entry.noReturnHost = noReturnHost.slice(0, 253);
            const due = enqueueRecord({ collectUrl, key, secret }, entry, timing);
            if (due) ctx.waitUntil(due);
          }
        } catch {
          // never break the site
        }
      }
      return response;
    },
  };
}

/**
 * The answer to a challenged or refused request: a challenged navigation goes to the check page with a signed
 * return ticket (or gets a 403 page when its host is not one a challenge may return to); any other challenged
 * request and every refused one gets our own small 403 page. Undefined when a challenge cannot be carried out
 * (no check page or pass key in the config): the request is then served.
 */
async function act(
  request: Request,
  url: URL,
  config: LoadedConfig,
  action: 'challenge' | 'deny',
  risk: number,
): Promise<Response | undefined> {
  const accept = request.headers.get('accept');
  let kind: RefusalKind = 'deny';
  if (action === 'challenge') {
    if (!config.challengeUrl || !config.passKey) return undefined;
    kind = 'challenge';
    if (isNavigation(request.method, accept, request.headers.get('sec-fetch-mode'))) {
      const location = await challengeLocation(config, url, risk);
      if (location) return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
      kind = 'no-return';
    }
  }
  const page = refusalPage(kind, accept, request.headers.get('cf-ray'));
  return new Response(request.method === 'HEAD' ? null : page.body, { status: page.status, headers: page.headers });
}

export default withUnseen;
