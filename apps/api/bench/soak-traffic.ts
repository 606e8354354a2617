// The soak's traffic mix: what each kind of request looks like, how often it is sent and which answer
// counts as right. Page reports come from a pool of visitors, each with its own address and browser,
// sent as a first-party proxy would (site secret in x-svc-proxy, the visitor's address in
// x-svc-client-ip), so per-address budgets see many addresses instead of the bench's one.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AnalyticsTable } from '@us/db';
import { type LoadRequest, mcpToolCall } from './load.ts';

/** Where the soak sends its traffic: made by `prepareSoak` in soak.ts. */
export interface SoakTarget {
  /** API token of the soak workspace. */
  token: string;
  /** The site that receives page reports and request batches. */
  collect: { publicKey: string; secret: string; hostname: string };
  /** The small site whose stats are read. */
  statsSiteId: string;
  statsDays: number;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TrafficKind {
  name: string;
  perSecond: number;
  next: () => LoadRequest;
  ok: (a: Answer) => boolean;
  /** Rows one accepted request adds to a raw table, for "acknowledged vs stored". */
  stores?: { table: AnalyticsTable; rows: number };
}

export const VISITORS = 5_000;
const RECORDS_PER_BATCH = 50;
const PATHS = ['/', '/pricing', '/products/trail-runner-2', '/blog/marathon-training-plan', '/cart', '/checkout', '/about'];
const REFERRERS = ['', '', 'https://www.google.com/', 'https://duckduckgo.com/', 'https://news.ycombinator.com/'];
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
];
const CRAWLERS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
];

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
const byte = () => Math.floor(Math.random() * 256);
const newPageviewId = () => randomBytes(12).toString('base64url');

/** A routable-looking address: nine in ten IPv4, the rest IPv6. */
function randomAddress(): string {
  if (Math.random() < 0.9)
    return `${1 + Math.floor(Math.random() * 222)}.${byte()}.${byte()}.${1 + Math.floor(Math.random() * 254)}`;
  const group = () => Math.floor(Math.random() * 0x10000).toString(16);
  return `2a0${Math.floor(Math.random() * 10)}:${group()}:${group()}:${group()}::${group()}`;
}

interface Visitor {
  ip: string;
  ua: string;
  pages: number;
  path: string;
  pageviewId: string;
}

function makeVisitors(n: number): Visitor[] {
  return Array.from({ length: n }, () => ({
    ip: randomAddress(),
    ua: pick(BROWSERS),
    pages: 0,
    path: '/',
    pageviewId: newPageviewId(),
  }));
}

/** Builds the page reports of `VISITORS` visitors: a pageview moves a visitor on; leaves and events refer to it. */
function pageReports(target: SoakTarget['collect']) {
  const visitors = makeVisitors(VISITORS);
  const origin = `https://${target.hostname}`;
  const post = (v: Visitor, report: Record<string, unknown>): LoadRequest => ({
    method: 'POST',
    path: '/collect',
    headers: {
      'content-type': 'text/plain',
      origin,
      'user-agent': v.ua,
      'x-svc-proxy': target.secret,
      'x-svc-client-ip': v.ip,
    },
    body: JSON.stringify({ k: target.publicKey, u: `${origin}${v.path}`, id: v.pageviewId, ...report }),
  });
  return {
    pageview(): LoadRequest {
      const v = pick(visitors);
      v.pages += 1;
      v.path = pick(PATHS);
      v.pageviewId = newPageviewId();
      return post(v, { t: 'pv', r: pick(REFERRERS), w: 1280, l: 'en-US', z: 'Europe/Berlin', n: v.pages });
    },
    leave: (): LoadRequest =>
      post(pick(visitors), { t: 'leave', s: Math.floor(Math.random() * 101), d: Math.floor(Math.random() * 120_000), i: 1 }),
    event: (): LoadRequest => post(pick(visitors), { t: 'ev', e: 'signup', el: 'footer', ev: 1 }),
  };
}

/** A batch of server requests as the edge SDK sends it after its responses. */
function requestBatch(target: SoakTarget['collect']): LoadRequest {
  const now = Date.now();
  const records = Array.from({ length: RECORDS_PER_BATCH }, () => ({
    at: now - Math.floor(Math.random() * 1000),
    method: 'GET',
    path: pick(PATHS),
    status: pick([200, 200, 200, 304, 404]),
    cache: pick(['HIT', 'MISS', 'DYNAMIC']),
    ms: Math.floor(Math.random() * 300),
    ip: randomAddress(),
    ua: Math.random() < 0.3 ? pick(CRAWLERS) : pick(BROWSERS),
    tls: 'TLSv1.3',
  }));
  return {
    method: 'POST',
    path: '/collect/requests',
    headers: { 'content-type': 'application/json', 'x-svc-proxy': target.secret },
    body: JSON.stringify({ k: target.publicKey, records }),
  };
}

const status =
  (expected: number) =>
  (a: Answer): boolean =>
    a.status === expected;

/** A JSON-RPC result that is not a tool error. */
function mcpResultOk(a: Answer): boolean {
  if (a.status !== 200) return false;
  try {
    const m = JSON.parse(a.body) as { result?: { isError?: boolean } };
    return m.result !== undefined && m.result.isError !== true;
  } catch {
    return false;
  }
}

/**
 * The mix, 146 requests/s in all: under a tenth of what the API answers on two cores, so the
 * soak measures how the process holds up over time, not how it queues under saturation.
 */
export function trafficKinds(t: SoakTarget): TrafficKind[] {
  const page = pageReports(t.collect);
  const get = (path: string): LoadRequest => ({ method: 'GET', path, headers: { authorization: `Bearer ${t.token}` } });
  const days = `days=${t.statsDays}`;
  return [
    {
      name: 'POST /collect pageview',
      perSecond: 50,
      next: page.pageview,
      ok: status(202),
      stores: { table: 'pageviews', rows: 1 },
    },
    { name: 'POST /collect leave', perSecond: 35, next: page.leave, ok: status(202), stores: { table: 'page_leaves', rows: 1 } },
    { name: 'POST /collect event', perSecond: 15, next: page.event, ok: status(202), stores: { table: 'events', rows: 1 } },
    {
      name: `POST /collect/requests ×${RECORDS_PER_BATCH}`,
      perSecond: 2,
      next: () => requestBatch(t.collect),
      // A paused workspace also answers 202 but stores nothing: that is not what the soak means to send.
      ok: (a) => a.status === 202 && a.headers['x-svc-logging'] !== 'paused',
      stores: { table: 'requests', rows: RECORDS_PER_BATCH },
    },
    { name: 'GET /v1/me', perSecond: 20, next: () => get('/v1/me'), ok: status(200) },
    { name: 'GET /v1/sites', perSecond: 10, next: () => get('/v1/sites'), ok: status(200) },
    { name: 'MCP tools/call get_me', perSecond: 10, next: () => mcpToolCall(t.token, 'get_me'), ok: mcpResultOk },
    {
      name: `GET summary?${days}`,
      perSecond: 2,
      next: () => get(`/v1/sites/${t.statsSiteId}/summary?${days}`),
      ok: status(200),
    },
    {
      name: `GET top/page?${days}`,
      perSecond: 2,
      next: () => get(`/v1/sites/${t.statsSiteId}/top/page?${days}`),
      ok: status(200),
    },
  ];
}
