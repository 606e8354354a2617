/**
 * Edge worker SDK: wraps a Workers fetch handler, decides per request whether to serve, challenge or refuse it
 * (the bot-protection gate, `gate.ts`), records one request record per request after the response and sends
 * them in batches to `POST {collectUrl}/requests`. No runtime dependency besides the bot catalogue; fails open.
 */
import type { RequestBatch as SharedBatch, RequestRecord as SharedRecord } from '../../shared/src/schemas/collect.ts';
import {
  challengeLocation,
  configFor,
  decideRequest,
  type GateOutcome,
  type IncomingCf,
  type LoadedConfig,
  tlsClassOf,
} from './gate.ts';
import { ALWAYS_SERVED_PATHS, isNavigation, isServicePath, type RefusalKind, refusalPage } from './protect.ts';
import { proxyHeaders } from './proxy-headers.ts';

export type { GateOutcome, IncomingCf, LoadedConfig, ProtectionConfig } from './gate.ts';
export { isModernBrowser, loadConfig, resetConfigCache, tlsClassOf, verificationOf } from './gate.ts';
export type { DecideRequest, ProtectInput, ProtectVerdict, RefusalKind } from './protect.ts';
export { isNavigation, passCookie, protect, refusalPage } from './protect.ts';
export type { ProxyHeadersInput } from './proxy-headers.ts';
export { proxyHeaders } from './proxy-headers.ts';

/**
 * A request record with the gate's decision. The fields are optional in the service's schema (records from an
 * older SDK carry none); until `@us/shared` has them they are declared here, with the same names.
 */
export type RequestRecord = SharedRecord & {
  action?: 'allow' | 'challenge' | 'deny';
  /** Why (`decide`'s reason, or `off: …` / `fail open: …`), at most 256 characters. */
  reason?: string;
  /** 0-100 for a browser, -1 for a declared bot; absent when nothing was judged. */
  risk?: number;
  /** Coarse TLS class (`tls1.3`, `tls1.2`, `tls1.2-legacy`, `tls-old`, `none`). */
  tlsClass?: string;
};
export type RequestBatch = Omit<SharedBatch, 'records'> & { records: RequestRecord[] };

export const DEFAULT_COLLECT_URL = 'https://collect.unseen.example/collect';
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

const MAX_BATCH = 500;

interface Queue {
  records: RequestRecord[];
  /** `at` of the oldest queued record. */
  oldest: number;
}

/** Isolate-level queues, one per (collect URL, key, secret). */
const queues = new Map<string, Queue>();
let warnedMissingConfig = false;

function cut(value: string | null | undefined, max: number): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return value.length > max ? value.slice(0, max) : value;
}

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

async function send(endpoint: string, secret: string, batch: RequestBatch): Promise<void> {
  const body = JSON.stringify(batch);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-proxy': secret },
        body,
      });
      // Drain the body so the connection can be reused.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return;
      // A refused batch (400/401/403/413) will be refused again; only retry what may pass later.
      if (res.status < 500 && res.status !== 429 && res.status !== 408) break;
    } catch {
      // network failure: retry once
    }
  }
  console.warn(`unseen: dropped a batch of ${batch.records.length} request records`);
}

/** Takes what is due from a queue and sends it; never rejects. */
function flushDue(
  queue: Queue,
  now: number,
  opts: { batchSize: number; flushAfterMs: number; endpoint: string; secret: string; key: string },
): Promise<void> | undefined {
  const sends: Promise<void>[] = [];
  while (queue.records.length > 0 && (queue.records.length >= opts.batchSize || now - queue.oldest >= opts.flushAfterMs)) {
    const records = queue.records.splice(0, Math.min(MAX_BATCH, Math.max(opts.batchSize, 1)));
    queue.oldest = queue.records[0]?.at ?? now;
    sends.push(send(opts.endpoint, opts.secret, { k: opts.key, records }));
  }
  if (sends.length === 0) return undefined;
  return Promise.all(sends).then(
    () => undefined,
    () => undefined,
  );
}

function joinUrl(base: string, suffix: string): string {
  return base.replace(/\/+$/, '') + suffix;
}

function forwardToService(request: Request, serviceOrigin: string, secret: string): Promise<Response> {
  const incoming = new URL(request.url);
  const target = new URL(incoming.pathname + incoming.search, serviceOrigin);
  const headers = new Headers(request.headers);
  for (const name of [...headers.keys()]) {
    if (name.startsWith('x-svc-')) headers.delete(name);
  }
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
  return fetch(target.toString(), {
    method: request.method,
    headers,
    body: hasBody ? request.body : null,
    redirect: 'manual',
  });
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
  const batchSize = Math.min(MAX_BATCH, Math.max(1, Math.floor(options.batchSize ?? 20)));
  const flushAfterMs = Math.max(0, options.flushAfterMs ?? 2000);
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
        record = options.shouldRecord ? options.shouldRecord(request) !== false : true;
      } catch {
        record = true;
      }

      // The gate: decide before the origin. Anything going wrong here serves the request (fail open).
      const cf = ((request as Request & { cf?: IncomingCf }).cf ?? {}) as IncomingCf;
      let tlsClass: string | undefined;
      let gate: GateOutcome = { action: 'allow', reason: 'off: protection disabled in the worker' };
      let refusal: Response | undefined;
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
            }
          }
        }
      } catch (e) {
        gate = { action: 'allow', reason: `fail open: the gate failed (${e instanceof Error ? e.name : 'error'})` };
        refusal = undefined;
      }

      // Let the handler's own outcome (response or exception) reach the visitor unchanged.
      const response = refusal ?? (await inner(request, env, ctx));

      if (record) {
        try {
          const entry = buildRecord(request, response, at, Date.now() - at, gate, tlsClass);
          if (entry) {
            const id = `${collectUrl}\n${key}\n${secret}`;
            let queue = queues.get(id);
            if (!queue) {
              queue = { records: [], oldest: entry.at };
              queues.set(id, queue);
            }
            if (queue.records.length === 0) queue.oldest = entry.at;
            queue.records.push(entry);
            // Bound memory if sends keep failing or the isolate is busy.
            if (queue.records.length > MAX_BATCH * 4) queue.records.splice(0, queue.records.length - MAX_BATCH * 4);
            const due = flushDue(queue, Date.now(), {
              batchSize,
              flushAfterMs,
              endpoint: joinUrl(collectUrl, '/requests'),
              secret,
              key,
            });
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
