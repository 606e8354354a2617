/**
 * The bot-protection gate at the edge: the site's protection config (fetched from the service, cached per
 * isolate, refreshed in the background), the facts of one request from `request.cf` and its headers, and the
 * decision through `@us/protection`'s `decide`. Fails open: whatever cannot be answered in time is served.
 */
import {
  BOT_ACTIONS,
  BOT_MODES,
  type BotAction,
  type BotMode,
  behaviourCode,
  classifyUserAgent,
  type Decision,
  decide,
  isHostingNetwork,
  issueTicket,
  PASS_COOKIE,
  passFromCookies,
  type RequestFacts,
  type Rule,
  ticketRisk,
  type UaClass,
  type Verification,
  verifyPass,
} from '../../protection/src/index.ts';

/** The site's protection config as `GET {collectUrl}/protection` answers it (protection README, "Contracts"). */
export interface ProtectionConfig {
  /** Site id (pass cookies and tickets are signed for it). */
  site: string;
  mode: BotMode;
  bots: BotAction;
  rules: Rule[];
  /** The site's pass key: checks `us_pass`, signs return tickets. */
  passKey: string;
  /** The check page. */
  challengeUrl: string;
  /** Hostnames a challenge may return to. */
  returnHosts: string[];
  /** Behaviour memory: the site's key of the day and the codes of visitors with automation signs. */
  behaviour?: { day: string; dayKey: string; flagged: Record<string, string[]> };
  /** How long an edge may keep this (capped at 60 s). */
  maxAgeSeconds?: number;
}

/** A config as the gate keeps it. */
export interface LoadedConfig extends ProtectionConfig {
  hosts: ReadonlySet<string>;
  flaggedCount: number;
  /** Where to ask the service about a declared crawler the platform gave no verdict on (set by `configFor`). */
  verify?: VerifyEndpoint;
}

/** `POST {collectUrl}/verify` and the site secret it is asked with. */
export interface VerifyEndpoint {
  endpoint: string;
  secret: string;
}

/** The `request.cf` fields the gate and the records read. */
export interface IncomingCf {
  country?: string;
  asn?: number;
  asOrganization?: string;
  tlsVersion?: string;
  tlsCipher?: string;
  verifiedBotCategory?: string;
  botManagement?: { verifiedBot?: boolean; verifiedBotCategory?: string; score?: number };
}

/** The gate's answer as a record carries it. */
export interface GateOutcome {
  action: BotAction;
  reason: string;
  /** Absent when no decision was made (mode off, fail open, always-served paths). */
  risk?: number;
}

const MODES = new Set<string>(BOT_MODES);
const ACTIONS = new Set<string>(BOT_ACTIONS);
export const MAX_CONFIG_AGE_SECONDS = 60;

/** Checks the shape the gate relies on; null when it cannot be used. */
export function loadConfig(raw: unknown): LoadedConfig | null {
  if (!raw || typeof raw !== 'object') return null;
  const c = raw as Partial<ProtectionConfig>;
  if (typeof c.mode !== 'string' || !MODES.has(c.mode)) return null;
  const bots = typeof c.bots === 'string' && ACTIONS.has(c.bots) ? c.bots : 'allow';
  const rules = Array.isArray(c.rules)
    ? c.rules.filter((r) => r && typeof r === 'object' && ACTIONS.has(r.action) && r.match && typeof r.match === 'object')
    : [];
  const returnHosts = Array.isArray(c.returnHosts) ? c.returnHosts.filter((h) => typeof h === 'string') : [];
  const b = c.behaviour;
  const behaviour =
    b && typeof b === 'object' && typeof b.dayKey === 'string' && b.dayKey && b.flagged && typeof b.flagged === 'object'
      ? { day: String(b.day ?? ''), dayKey: b.dayKey, flagged: b.flagged }
      : undefined;
  return {
    site: typeof c.site === 'string' ? c.site : '',
    mode: c.mode,
    bots,
    rules,
    passKey: typeof c.passKey === 'string' ? c.passKey : '',
    challengeUrl: typeof c.challengeUrl === 'string' ? c.challengeUrl : '',
    returnHosts,
    ...(behaviour ? { behaviour } : {}),
    maxAgeSeconds: Math.min(MAX_CONFIG_AGE_SECONDS, Math.max(1, Number(c.maxAgeSeconds) || MAX_CONFIG_AGE_SECONDS)),
    hosts: new Set(returnHosts.map((h) => h.toLowerCase())),
    flaggedCount: behaviour ? Object.keys(behaviour.flagged).length : 0,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The config cache: one per (collect URL, secret) in the isolate.

export interface ConfigCacheOptions {
  /** `{collectUrl}/protection`. */
  endpoint: string;
  secret: string;
  /** How long a request that finds no config waits for one (the first of an isolate, or after a failure). */
  budgetMs: number;
  /** How long a config fetch may take in the background before it is abandoned. */
  timeoutMs: number;
}

interface ConfigState {
  config?: LoadedConfig;
  etag?: string;
  /** Until when the config is fresh (epoch ms). */
  freshUntil: number;
  /** A fetch in flight. */
  loading?: Promise<void>;
  /** No new fetch before this after a failed one (epoch ms). */
  retryAt: number;
  /** Why there is no config, for the records' reasons. */
  problem?: string;
}

/** After a failed fetch: wait this long before asking again (the stale copy, if any, keeps deciding). */
const RETRY_AFTER_MS = 10_000;
/** After an answer saying the secret is not accepted (401/403/404): ask again less often. */
const RETRY_REFUSED_MS = 60_000;

const states = new Map<string, ConfigState>();

async function fetchConfig(state: ConfigState, opts: ConfigCacheOptions): Promise<void> {
  const headers: Record<string, string> = { 'x-svc-proxy': opts.secret, accept: 'application/json' };
  if (state.etag && state.config) headers['if-none-match'] = state.etag;
  try {
    const res = await fetch(opts.endpoint, { headers, signal: AbortSignal.timeout(opts.timeoutMs) });
    if (res.status === 304 && state.config) {
      res.body?.cancel().catch(() => undefined);
      state.freshUntil = Date.now() + (state.config.maxAgeSeconds ?? MAX_CONFIG_AGE_SECONDS) * 1000;
      state.problem = undefined;
      return;
    }
    if (res.status !== 200) {
      res.body?.cancel().catch(() => undefined);
      state.problem = `protection config unavailable (service answered ${res.status})`;
      state.retryAt = Date.now() + ([401, 403, 404].includes(res.status) ? RETRY_REFUSED_MS : RETRY_AFTER_MS);
      return;
    }
    const config = loadConfig(await res.json().catch(() => null));
    if (!config) {
      state.problem = 'protection config unreadable';
      state.retryAt = Date.now() + RETRY_AFTER_MS;
      return;
    }
    config.verify = { endpoint: opts.endpoint.replace(/\/protection$/, '/verify'), secret: opts.secret };
    state.config = config;
    state.etag = res.headers.get('etag') ?? undefined;
    state.freshUntil = Date.now() + (config.maxAgeSeconds ?? MAX_CONFIG_AGE_SECONDS) * 1000;
    state.problem = undefined;
  } catch (e) {
    const slow = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
    state.problem = slow
      ? `protection config timed out (${opts.timeoutMs} ms)`
      : 'protection config unavailable (service unreachable)';
    state.retryAt = Date.now() + RETRY_AFTER_MS;
  }
}

/** `p`, or 'timeout' after `ms`, whichever comes first (the timer is cleared either way). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The config to decide with, or why there is none. A fresh copy is used as is; a stale one keeps deciding
 * while a conditional refresh runs in `waitUntil`. With no copy, the request that starts the fetch waits for
 * it at most `budgetMs`; every other request is served at once (requests never wait on another request's
 * fetch: in workerd that promise belongs to the other request).
 */
export async function configFor(
  opts: ConfigCacheOptions,
  ctx: { waitUntil(p: Promise<unknown>): void },
): Promise<{ config: LoadedConfig } | { problem: string }> {
  const id = `${opts.endpoint}\n${opts.secret}`;
  let state = states.get(id);
  if (!state) {
    state = { freshUntil: 0, retryAt: 0 };
    states.set(id, state);
  }
  const now = Date.now();
  if (state.config && now < state.freshUntil) return { config: state.config };
  if (!state.loading && now >= state.retryAt) {
    const s = state;
    const loading = fetchConfig(s, opts).finally(() => {
      if (s.loading === loading) s.loading = undefined;
    });
    s.loading = loading;
    ctx.waitUntil(loading);
    if (!s.config) {
      const first = await within(loading, opts.budgetMs);
      if (s.config) return { config: s.config };
      return {
        problem: first === 'timeout' ? `no protection config within ${opts.budgetMs} ms` : (s.problem ?? 'no protection config'),
      };
    }
  }
  if (state.config) return { config: state.config };
  return { problem: state.problem ?? 'protection config still loading' };
}

/** Forget every cached config (tests, benchmarks). */
export function resetConfigCache(): void {
  states.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Facts.

/** Whether the platform verified a declared bot: verified / failed / no bot-management data (unknown). */
export function verificationOf(cf: IncomingCf): Verification {
  const bm = cf.botManagement;
  if (bm?.verifiedBot === true || cf.verifiedBotCategory || bm?.verifiedBotCategory) return 'verified';
  if (bm && typeof bm.verifiedBot === 'boolean') return 'failed';
  return 'unknown';
}

/** How long a request waits for the service's verdict on a crawler; past it the verdict is `unknown`. */
export const VERIFY_BUDGET_MS = 50;
/** The service's `verified` and `failed` are kept at most this long in the isolate… */
const VERDICT_KEEP_MS = 24 * 3600_000;
/** …and its `unknown` (DNS did not answer) only this long. */
const UNKNOWN_KEEP_MS = 5_000;
const VERDICTS_MAX = 10_000;

/** The service's verdicts in this isolate, per address and crawler. */
const verdicts = new Map<string, { verification: Verification; until: number }>();
const VERIFICATIONS = new Set<string>(['verified', 'failed', 'unknown']);

/**
 * The service's verdict on a declared crawler at `ip` (`POST {collectUrl}/verify`), for a request the
 * platform gave none: cached per address and crawler, asked within `VERIFY_BUDGET_MS`. An answer not in
 * time is `unknown` for this request and is not kept: the service finishes the lookup and caches it, so the
 * next request from that address gets the verdict. Never throws.
 */
export async function verificationByService(verify: VerifyEndpoint, ip: string, ua: string, bot: string): Promise<Verification> {
  const key = `${verify.endpoint}\n${ip}\n${bot}`;
  const now = Date.now();
  const hit = verdicts.get(key);
  if (hit && hit.until > now) return hit.verification;
  try {
    const res = await fetch(verify.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-proxy': verify.secret },
      body: JSON.stringify({ ip, ua: ua.slice(0, 1024), budgetMs: VERIFY_BUDGET_MS }),
      signal: AbortSignal.timeout(VERIFY_BUDGET_MS),
    });
    if (!res.ok) {
      res.body?.cancel().catch(() => undefined);
      return 'unknown';
    }
    const answer = (await res.json()) as { verification?: unknown; maxAgeSeconds?: unknown };
    if (typeof answer?.verification !== 'string' || !VERIFICATIONS.has(answer.verification)) return 'unknown';
    const verification = answer.verification as Verification;
    const maxAgeMs = typeof answer.maxAgeSeconds === 'number' ? answer.maxAgeSeconds * 1000 : 0;
    const keepMs = Math.min(maxAgeMs, verification === 'unknown' ? UNKNOWN_KEEP_MS : VERDICT_KEEP_MS);
    if (keepMs > 0) {
      if (verdicts.size >= VERDICTS_MAX) verdicts.delete(verdicts.keys().next().value as string);
      verdicts.set(key, { verification, until: Date.now() + keepMs });
    }
    return verification;
  } catch {
    return 'unknown';
  }
}

/**
 * A coarse class of the TLS connection (never a fingerprint): `tls1.3`; `tls1.2` with an AEAD cipher
 * (GCM, ChaCha20) and forward secrecy; `tls1.2-legacy` (CBC or RSA key exchange); `tls-old` (TLS 1.0/1.1,
 * SSL); `none` (plain HTTP). Undefined when the platform says nothing.
 */
export function tlsClassOf(version: string | undefined, cipher: string | undefined, protocol: string): string | undefined {
  const v = (version ?? '').toUpperCase();
  if (!v) return protocol === 'http:' ? 'none' : undefined;
  if (v.includes('1.3')) return 'tls1.3';
  if (v.includes('1.2')) {
    const c = (cipher ?? '').toUpperCase();
    if (!c) return 'tls1.2';
    return /GCM|CHACHA20|CCM/.test(c) && /ECDHE|DHE/.test(c) ? 'tls1.2' : 'tls1.2-legacy';
  }
  return 'tls-old';
}

/** Browsers that refuse anything older than TLS 1.2 (Chrome/Edge 84, Firefox 78, Safari 14, all from 2020). */
export function isModernBrowser(ua: string): boolean {
  let m = /(?:Chrome|CriOS|Edg)\/(\d+)/.exec(ua);
  if (m) return Number(m[1]) >= 84;
  m = /(?:Firefox|FxiOS)\/(\d+)/.exec(ua);
  if (m) return Number(m[1]) >= 78;
  m = /Version\/(\d+)(?:\.\d+)*(?: Mobile\/\w+)? Safari\//.exec(ua);
  if (m) return Number(m[1]) >= 14;
  return false;
}

export interface RequestView {
  url: URL;
  headers: Headers;
  cf: IncomingCf;
  tlsClass: string | undefined;
}

/**
 * `classifyUserAgent` through an isolate-level memo: a handful of user-agent strings make most traffic, and
 * classifying a browser's string through the catalogue's regular expressions is costly
 * (docs/performance/history.md, "The first changes (issue 13)"). Bounded: cleared when full.
 */
const uaMemo = new Map<string, UaClass>();
const UA_MEMO_SIZE = 2000;
export function classifyCached(ua: string): UaClass {
  let cls = uaMemo.get(ua);
  if (!cls) {
    cls = classifyUserAgent(ua);
    if (ua.length <= 512) {
      if (uaMemo.size >= UA_MEMO_SIZE) uaMemo.clear();
      uaMemo.set(ua, cls);
    }
  }
  return cls;
}

/** Everything the decision needs about one request (addresses and user agents stay out of the facts). */
export async function factsOf(req: RequestView, config: LoadedConfig): Promise<RequestFacts> {
  const ua = req.headers.get('user-agent') ?? '';
  const ip = req.headers.get('cf-connecting-ip') ?? '';
  const { cf } = req;
  const cls = classifyCached(ua);
  const asn = typeof cf.asn === 'number' && Number.isInteger(cf.asn) ? cf.asn : null;
  let verification = verificationOf(cf);
  // A crawler its operator lets us verify, with no verdict from the platform: the service checks it.
  if (verification === 'unknown' && cls.kind === 'bot' && cls.bot?.verifiable && ip && config.verify) {
    verification = await verificationByService(config.verify, ip, ua, cls.bot.name);
  }
  const facts: RequestFacts = {
    path: req.url.pathname,
    ua: cls,
    verification,
    asn,
    hosting: asn !== null && isHostingNetwork({ asn, org: cf.asOrganization ?? '' }),
    country: typeof cf.country === 'string' && cf.country.length === 2 ? cf.country.toUpperCase() : null,
    pass: false,
  };
  if (req.tlsClass === 'tls-old' && cls.kind === 'browser' && !cls.bot && isModernBrowser(ua)) facts.signs = ['tls-mismatch'];
  const cookie = req.headers.get('cookie');
  if (config.passKey && config.site && cookie?.includes(PASS_COOKIE)) {
    facts.pass = await verifyPass(config.passKey, config.site, ua, ip, passFromCookies(cookie));
  }
  const b = config.behaviour;
  if (b && config.flaggedCount > 0 && ip) {
    const signs = b.flagged[await behaviourCode(b.dayKey, ip, ua)];
    if (Array.isArray(signs) && signs.length) facts.memory = signs;
  }
  return facts;
}

export async function decideRequest(req: RequestView, config: LoadedConfig): Promise<Decision> {
  return decide(config, await factsOf(req, config));
}

// ---------------------------------------------------------------------------------------------------------
// Acting.

/** `{challengeUrl}?t=<ticket>` for a challenged navigation, or null when the host cannot be returned to. */
export async function challengeLocation(config: LoadedConfig, url: URL, risk: number): Promise<string | null> {
  const host = url.hostname.toLowerCase();
  if (!config.hosts.has(host)) return null;
  const r = ticketRisk(risk);
  const ticket = await issueTicket(config.passKey, { s: config.site, h: host, p: (url.pathname + url.search).slice(0, 2048), r });
  const target = new URL(config.challengeUrl);
  target.searchParams.set('t', ticket);
  return target.toString();
}
