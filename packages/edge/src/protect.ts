/**
 * Proxy mode's gate for Node servers (Express, Koa, `node:http`): ask the service what to do with one request
 * (`POST {collectUrl}/decide`) within a small budget, and tell the caller: serve it, send it to the check page,
 * or refuse it. With the site key it records the request too, in the same batches as the edge worker
 * (`records.ts`): a refused or redirected request at once, a served one when the caller says how it was
 * answered (`verdict.done(status)`; the middleware in `node.ts` does that on the response's 'finish').
 * Dependency-free besides `records.ts` and the protection package's `paths.ts`; it fails open: no answer in time, an error or
 * an answer it cannot read → serve.
 *
 * The refusal pages live here too, so the edge worker and proxy mode answer alike.
 */
import { originForm, pathToDecide } from '../../protection/src/paths.ts';
import { batchTiming, cut, enqueueRecord, type RequestRecord } from './records.ts';

export const DEFAULT_DECIDE_BUDGET_MS = 50;

/** What the service is told about one request (the `POST {collectUrl}/decide` body). */
export interface DecideRequest {
  /** The visitor's address. */
  ip: string;
  /** The user-agent header ('' when none). */
  ua: string;
  /** Path and query string as requested (rules match the path part; a challenge returns to both). */
  path: string;
  /** The hostname the visitor asked for (no port). */
  host: string;
  /** The `us_pass` cookie's value, if any. */
  pass?: string;
  /** The platform's verdict on a declared crawler, when something in front of you gives one. */
  verifiedBot?: boolean;
  country?: string;
  asn?: number;
  /** TLS protocol, e.g. `TLSv1.3`, when your TLS terminator tells you. */
  tls?: string;
  /** How long the caller waits (`budgetMs`): the service answers within it, lookups finish in the background. */
  budgetMs?: number;
}

export interface ProtectInput {
  /** The site's server secret (`sk_live_…`). */
  secret: string;
  /**
   * The site's public key (`pk_…`). With it the request is recorded (batched to `{collectUrl}/requests` with
   * its decision); without it, it is only decided.
   */
  key?: string;
  /** Collect URL, e.g. `https://collect.unseen.example/collect`; the decision is asked of `{collectUrl}/decide`. */
  collectUrl: string;
  /** The visitor's address (e.g. Express `req.ip` with `trust proxy` set). */
  ip: string | null | undefined;
  method: string;
  /** Path and query string (Express `req.originalUrl`, node `req.url`). */
  url: string;
  /** `Host` header or hostname; a port is dropped. */
  host: string | null | undefined;
  /** Request headers; `user-agent`, `cookie`, `accept`, `sec-fetch-mode` and `sec-gpc` are read. */
  headers: Record<string, string | string[] | undefined>;
  verifiedBot?: boolean;
  country?: string | null;
  asn?: number | string | null;
  tls?: string | null;
  /** How long to wait for the service (default 50 ms); past it the request is served. */
  budgetMs?: number;
  /** false: decide, record nothing. A request sending `Sec-GPC: 1` (Global Privacy Control) is never recorded. */
  record?: boolean;
  /** Send records when this many are queued (default 20, at most 500). */
  batchSize?: number;
  /** Send records when the oldest queued is older than this (default 2000 ms; a timer sends them). */
  flushAfterMs?: number;
  /** For tests: a fetch implementation. */
  fetch?: typeof fetch;
}

/** What to do with the request. */
export type ProtectVerdict =
  | {
      do: 'serve';
      reason: string;
      action?: 'allow' | 'challenge' | 'deny';
      risk?: number;
      /**
       * Call once the response is finished, with its status: records the request (only the first call counts;
       * nothing when there is no site key, under Global Privacy Control, or for the service's own paths).
       */
      done(status: number): void;
    }
  | { do: 'redirect'; status: 302; location: string; headers: Record<string, string>; reason: string; risk?: number }
  | {
      do: 'refuse';
      status: 403;
      /** `content-type`, `cache-control: no-store`, … */
      headers: Record<string, string>;
      body: string;
      reason: string;
      action: 'challenge' | 'deny';
      risk?: number;
    };

/** Paths every client may always fetch (the decision order's step 1). */
export const ALWAYS_SERVED_PATHS: ReadonlySet<string> = new Set(['/robots.txt', '/.well-known/security.txt']);

/** The service's own paths on the customer host (`/_us/pass` after the check) are never gated. */
export const isServicePath = (path: string) => path === '/_us' || path.startsWith('/_us/');

/**
 * The path a request URL names once resolved as `fetch` and URL-resolving origins resolve it: dot segments,
 * encoded dots (`%2e`) and backslashes. `/_us/../admin` is `/admin`, never the service's own path.
 */
export function resolvedPath(url: string): string {
  try {
    return new URL(url, 'http://origin.invalid').pathname;
  } catch {
    return '/';
  }
}

/** The decide endpoint's bounds on the fields a visitor chooses (`DECIDE_LIMITS` of the service's schema). */
const DECIDE_BOUNDS = { ua: 1024, path: 2048, host: 253, pass: 128 } as const;

const header = (headers: ProtectInput['headers'], name: string): string => {
  const v = headers?.[name];
  return (Array.isArray(v) ? v.join(', ') : v) ?? '';
};

/** A top-level page load: GET/HEAD of a document (Sec-Fetch-Mode navigate, or an Accept that names HTML). */
export function isNavigation(method: string, accept: string | null, secFetchMode: string | null): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (secFetchMode) return secFetchMode === 'navigate';
  return (accept ?? '').toLowerCase().includes('text/html');
}

/** The `us_pass` value in a Cookie header, if any. */
export function passCookie(cookie: string | null | undefined): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === 'us_pass') return part.slice(i + 1).trim() || undefined;
  }
  return undefined;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const PAGES = {
  deny: {
    title: 'Access refused',
    text: 'This site’s protection refused this request. If you think this is a mistake, please contact the site’s owner.',
  },
  challenge: {
    title: 'A quick check is needed',
    text: 'This site checks that visitors are people before serving this request. Open the page in your browser to take the check, then try again.',
  },
  'no-return': {
    title: 'A quick check is needed',
    text: 'This site checks that visitors are people, but the check cannot send you back to this address. Please visit the site through its main address.',
  },
} as const;
export type RefusalKind = keyof typeof PAGES;

/**
 * Our own small 403 page: no script, no third-party anything, never cached. Plain text when the client does not
 * ask for HTML (API calls), HTML otherwise. `ref` (e.g. the `cf-ray`) helps the site's owner find the request.
 */
export function refusalPage(
  kind: RefusalKind,
  accept: string | null,
  ref?: string | null,
): { status: 403; headers: Record<string, string>; body: string } {
  const page = PAGES[kind];
  const reference = ref && /^[\w.:-]{1,64}$/.test(ref) ? ref : undefined;
  const headers: Record<string, string> = {
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex',
    'x-content-type-options': 'nosniff',
  };
  if (!(accept ?? '').toLowerCase().includes('text/html')) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    return { status: 403, headers, body: `${page.title}. ${page.text}${reference ? ` Reference: ${reference}` : ''}\n` };
  }
  headers['content-type'] = 'text/html; charset=utf-8';
  headers['content-security-policy'] = "default-src 'none'; style-src 'unsafe-inline'";
  const body =
    '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${page.title}</title>` +
    '<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1f2328;background:#fff}' +
    'small{color:#59636e}@media(prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}small{color:#9198a1}}</style>' +
    `<main><h1>${page.title}</h1><p>${page.text}</p>` +
    (reference ? `<p><small>Reference: ${escapeHtml(reference)}</small></p>` : '') +
    '</main></html>\n';
  return { status: 403, headers, body };
}

/** The request asks not to be tracked (Global Privacy Control, `Sec-GPC: 1`): decided, never recorded. */
export const sendsGpc = (value: string | null | undefined) => (value ?? '').trim() === '1';

/**
 * The reason of a challenge whose hostname a check could not return to (not a verified hostname of the site):
 * the visitor gets the 403 page instead of the check. The same words at the edge and from the decide
 * endpoint; the hostname itself is never part of it (reasons are shown to the site's team, and a hostname is
 * whatever the visitor sent).
 */
export const noReturnReason = (reason: string) =>
  `${reason} (no check: not a verified hostname of the site, so a check could not return there)`;

/** What was decided; `verifiedBot` is the service's verdict on a declared crawler, recorded when the platform gave none. */
type Gate = { action: 'allow' | 'challenge' | 'deny'; reason: string; risk?: number; verifiedBot?: boolean | undefined };

/** Builds and queues this request's records, once. */
function recorder(input: ProtectInput, path: string, resolved: string) {
  const at = Date.now();
  const enabled =
    !!input.key && input.record !== false && !sendsGpc(header(input.headers, 'sec-gpc')) && !isServicePath(resolved);
  let recorded = false;
  return (status: number, gate: Gate) => {
    if (!enabled || recorded || !Number.isInteger(status) || status < 100 || status > 599) return;
    recorded = true;
    try {
      const record: RequestRecord = {
        at,
        method: (input.method || 'GET').toUpperCase().slice(0, 16),
        path: path.slice(0, 2048),
        status,
        ms: Math.min(600_000, Math.max(0, Math.round(Date.now() - at))),
        action: gate.action,
        reason: gate.reason.slice(0, 256),
      };
      if (gate.risk !== undefined) record.risk = gate.risk;
      const ip = cut(input.ip ? String(input.ip) : undefined, 64);
      if (ip) record.ip = ip;
      const ua = cut(header(input.headers, 'user-agent'), 1024);
      if (ua) record.ua = ua;
      if (input.country && /^[A-Za-z]{2}$/.test(input.country)) record.country = input.country.toUpperCase();
      const asn = asNumber(input.asn);
      if (asn !== undefined) record.asn = asn;
      const verifiedBot = typeof input.verifiedBot === 'boolean' ? input.verifiedBot : gate.verifiedBot;
      if (typeof verifiedBot === 'boolean') record.verifiedBot = verifiedBot;
      const tls = cut(input.tls ? String(input.tls) : undefined, 32);
      if (tls) record.tls = tls;
      const target = { collectUrl: input.collectUrl, key: input.key as string, secret: input.secret };
      void enqueueRecord(target, record, batchTiming(input), { timer: true });
    } catch {
      // never break the site
    }
  };
}

function asNumber(value: ProtectInput['asn']): number | undefined {
  const n = value === null || value === undefined || value === '' ? Number.NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Asks the service what to do with one request and says what the caller should do. Never throws, never waits
 * longer than the budget: anything else is `serve` with a `fail open: …` reason. A refused or redirected
 * request is recorded at once; a served one when the caller calls `done(status)`.
 *
 * The service answers `{ action, reason, risk, signals, challengeUrl?, verifiedBot? }`; `challengeUrl` (the check page
 * with a signed return ticket) is there when a challenged request may return to its host, `verifiedBot` when the
 * request declared a crawler and the service's lookup ended (recorded with the request).
 */
export async function protect(input: ProtectInput): Promise<ProtectVerdict> {
  const url = (typeof input.url === 'string' && input.url) || '/';
  const path = url.split('?')[0] || '/';
  // Which paths pass undecided is asked of the resolved path: a raw `/_us/%2e%2e/admin` is the origin's `/admin`.
  const resolved = resolvedPath(url);
  const record = recorder(input, path, resolved);
  const serve = (
    reason: string,
    extra: { action?: 'allow' | 'challenge' | 'deny'; risk?: number } = {},
    verifiedBot?: boolean,
  ): ProtectVerdict => ({
    do: 'serve',
    reason,
    ...extra,
    done: (status) => record(status, { action: 'allow', ...extra, reason, verifiedBot }),
  });
  try {
    if (ALWAYS_SERVED_PATHS.has(resolved)) return serve(`always served: ${resolved}`, { action: 'allow' });
    if (isServicePath(resolved)) return serve('the service’s own path', { action: 'allow' });
    const accept = header(input.headers, 'accept');
    // The visitor's fields within the endpoint's bounds: one past them was a 400, and a 400 serves the request.
    const host = String(input.host ?? '')
      .toLowerCase()
      .replace(/:\d+$/, '');
    const body: DecideRequest = {
      ip: addressOrUnknown(input.ip),
      ua: header(input.headers, 'user-agent').slice(0, DECIDE_BOUNDS.ua),
      path: pathToDecide(originForm(url), DECIDE_BOUNDS.path),
      host: host.length > 0 && host.length <= DECIDE_BOUNDS.host ? host : '(none)',
    };
    const pass = passCookie(header(input.headers, 'cookie'));
    if (pass && pass.length <= DECIDE_BOUNDS.pass) body.pass = pass;
    if (typeof input.verifiedBot === 'boolean') body.verifiedBot = input.verifiedBot;
    if (input.country && /^[A-Za-z]{2}$/.test(input.country)) body.country = input.country.toUpperCase();
    const asn = asNumber(input.asn);
    if (asn !== undefined) body.asn = asn;
    if (input.tls) body.tls = String(input.tls).slice(0, 32);

    const budget = Math.max(1, input.budgetMs ?? DEFAULT_DECIDE_BUDGET_MS);
    body.budgetMs = Math.min(10_000, Math.round(budget));
    let res: Response;
    try {
      res = await (input.fetch ?? fetch)(`${input.collectUrl.replace(/\/+$/, '')}/decide`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-proxy': input.secret },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(budget),
      });
    } catch (e) {
      const slow = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      return serve(slow ? `fail open: no decision within ${budget} ms` : 'fail open: service unreachable');
    }
    if (!res.ok) {
      res.body?.cancel().catch(() => undefined);
      return serve(`fail open: service answered ${res.status}`);
    }
    let answer: { action?: unknown; reason?: unknown; risk?: unknown; challengeUrl?: unknown; verifiedBot?: unknown };
    try {
      answer = (await res.json()) as typeof answer;
    } catch (e) {
      const slow = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      return serve(slow ? `fail open: no decision within ${budget} ms` : 'fail open: unreadable answer');
    }
    const reason = typeof answer?.reason === 'string' ? answer.reason : '';
    const risk = typeof answer?.risk === 'number' ? answer.risk : undefined;
    const riskPart = risk === undefined ? {} : { risk };
    const verifiedBot = typeof answer?.verifiedBot === 'boolean' ? answer.verifiedBot : undefined;
    if (answer?.action === 'allow') return serve(reason, { action: 'allow', ...riskPart }, verifiedBot);
    if (answer?.action !== 'challenge' && answer?.action !== 'deny') return serve('fail open: unreadable answer');
    const action = answer.action;
    const ref = header(input.headers, 'cf-ray') || header(input.headers, 'x-request-id');
    let verdict: ProtectVerdict;
    if (action === 'challenge') {
      const location = answer.challengeUrl;
      if (!isNavigation(input.method.toUpperCase(), accept, header(input.headers, 'sec-fetch-mode') || null)) {
        verdict = { do: 'refuse', action, reason, ...riskPart, ...refusalPage('challenge', accept, ref) };
      } else if (typeof location === 'string' && /^https?:\/\//.test(location)) {
        verdict = {
          do: 'redirect',
          status: 302,
          location,
          headers: { location, 'cache-control': 'no-store' },
          reason,
          ...riskPart,
        };
      } else {
        verdict = { do: 'refuse', action, reason, ...riskPart, ...refusalPage('no-return', accept, ref) };
      }
    } else {
      verdict = { do: 'refuse', action, reason, ...riskPart, ...refusalPage('deny', accept, ref) };
    }
    record(verdict.status, { action, reason, ...riskPart, verifiedBot });
    return verdict;
  } catch (e) {
    return serve(`fail open: the gate failed (${e instanceof Error ? e.name : 'error'})`);
  }
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Whether `text` is an IPv6 address as Node's `isIP` reads one (groups of hex, one `::` at most, an IPv4 tail). */
function isIpv6(text: string): boolean {
  if (text.length > 45 || !text.includes(':')) return false;
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h ? h.split(':') : []));
  const last = groups.at(-1) as string[];
  let count = 0;
  if (last.length && (last.at(-1) as string).includes('.')) {
    if (!IPV4.test(last.pop() as string)) return false;
    count += 2;
  }
  for (const g of groups) for (const part of g) if (!HEX_GROUP.test(part)) return false;
  count += groups.reduce((n, g) => n + g.length, 0);
  return halves.length === 2 ? count <= 7 : count === 8;
}

/**
 * The client address as the service reads it, or `0.0.0.0` when it is none: behind `trust proxy` the address may
 * be the visitor's own X-Forwarded-For, and one the service refuses (400) made the request served undecided. As one
 * unknown address it is decided (a crawler it claims to be is not verified from there).
 */
function addressOrUnknown(ip: unknown): string {
  const text = String(ip ?? '');
  return IPV4.test(text) || isIpv6(text) ? text : '0.0.0.0';
}
