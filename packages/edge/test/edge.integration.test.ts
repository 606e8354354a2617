import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Miniflare } from 'miniflare';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { behaviourCode, issuePass, newKey, readTicket } from '../../protection/src/index.ts';
import { RequestBatch } from '../../shared/src/schemas/collect.ts';
import type { ProtectionConfig, RequestRecord } from '../src/index.ts';
import { protectMiddleware } from '../src/node.ts';
import { type ProtectVerdict, protect } from '../src/protect.ts';
import { proxyHeaders } from '../src/proxy-headers.ts';
import { batchTiming, enqueueRecord, flushRecords, MAX_IN_FLIGHT } from '../src/records.ts';
import { bundleWorker, SDK_ENTRY } from './bundle.ts';

const SECRET = 'sk_live_testsecret123';
const KEY = 'pk_abcdefghijklmnopqrstuvwxyz';

interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the capture server answered. */
  status?: number;
  /** A batch post's answer has been written (batches may be answered late). */
  answered?: boolean;
}

let server: Server;
let base = '';
const captured: Captured[] = [];
/** How many upcoming batch posts the capture server answers with 503. */
let failNext = 0;
/** What `GET /collect/protection` answers: the config (404 when null), after a delay, or a fixed status. */
const service: {
  config: ProtectionConfig | null;
  configDelayMs: number;
  configStatus?: number;
  /** What `POST /collect/decide` answers (status, body), after a delay. */
  decide: { status: number; body: unknown; delayMs: number };
  /** What `POST /collect/verify` answers (status, body), after a delay. */
  verify: { status: number; body: unknown; delayMs: number };
  /** Batch posts: answered after this long, and 413 past this many bytes (as the service's body limit). */
  requestsDelayMs: number;
  requestsMaxBytes: number;
} = {
  config: null,
  configDelayMs: 0,
  requestsDelayMs: 0,
  requestsMaxBytes: Number.POSITIVE_INFINITY,
  decide: { status: 200, body: {}, delayMs: 0 },
  verify: { status: 200, body: { verification: 'unknown', bot: null, maxAgeSeconds: 0 }, delayMs: 0 },
};

async function bundle(options: string): Promise<string> {
  // Node's fetch (under dispatchFetch) always sends `sec-fetch-mode: cors`: the test client sends the
  // Sec-Fetch-Mode it means as x-test-fetch-mode ('none' = none, as curl), put back in place before the SDK.
  return bundleWorker(
    `import { withUnseen } from ${JSON.stringify(SDK_ENTRY)};
const worker = withUnseen(async (req) => new Response('origin ' + new URL(req.url).pathname, {
  status: new URL(req.url).pathname === '/missing' ? 404 : 200,
  headers: { 'cf-cache-status': 'HIT', 'x-origin': 'yes' },
}), ${options});
export default {
  fetch(req, env, ctx) {
    const mode = req.headers.get('x-test-fetch-mode');
    if (mode !== null) {
      const headers = new Headers(req.headers);
      headers.delete('x-test-fetch-mode');
      if (mode !== 'none') headers.set('sec-fetch-mode', mode);
      else headers.delete('sec-fetch-mode');
      req = new Request(req, { headers });
    }
    return worker.fetch(req, env, ctx);
  },
};`,
  );
}

const instances: Miniflare[] = [];
/** What the workers wrote to their console. */
const workerLogs: string[] = [];
async function start(script: string, bindings: Record<string, string>): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    bindings,
    compatibilityDate: '2024-09-23',
    handleStructuredLogs: ({ message }: { message: string }) => {
      workerLogs.push(message);
    },
  });
  instances.push(mf);
  await mf.ready;
  return mf;
}

async function waitFor<T>(fn: () => T | undefined | Promise<T | undefined>, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

const batches = () => captured.filter((c) => c.url === '/collect/requests');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Captured = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      captured.push(entry);
      if (req.url === '/collect/protection') {
        const answer = () => {
          if (req.headers['x-svc-proxy'] !== SECRET) entry.status = 401;
          else if (service.configStatus) entry.status = service.configStatus;
          else if (!service.config) entry.status = 404;
          if (entry.status) {
            res.writeHead(entry.status).end();
            return;
          }
          const body = JSON.stringify(service.config);
          const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
          entry.status = req.headers['if-none-match'] === etag ? 304 : 200;
          if (entry.status === 304) res.writeHead(304, { etag }).end();
          else res.writeHead(200, { 'content-type': 'application/json', etag }).end(body);
        };
        if (service.configDelayMs) setTimeout(answer, service.configDelayMs);
        else answer();
        return;
      }
      if (req.url === '/collect/decide' || req.url === '/collect/verify') {
        const { status, body, delayMs } = req.url === '/collect/decide' ? service.decide : service.verify;
        setTimeout(() => {
          entry.status = status;
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        }, delayMs);
        return;
      }
      if (req.url?.startsWith('/_us/')) {
        res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'us_pass=abc; Path=/; HttpOnly' });
        res.end('service ' + req.url);
        return;
      }
      if (req.url === '/collect/requests' && failNext > 0) {
        failNext--;
        res.writeHead(503).end();
        return;
      }
      entry.status = req.url === '/collect/requests' && entry.body.length > service.requestsMaxBytes ? 413 : 202;
      const answered = () => {
        entry.answered = true;
        res.writeHead(entry.status as number).end();
      };
      if (req.url === '/collect/requests' && service.requestsDelayMs) setTimeout(answered, service.requestsDelayMs);
      else answered();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  while (instances.length) await instances.pop()!.dispose();
  // protect()'s queues live in this process: nothing a test left queued may arrive in the next one's batches.
  await flushRecords();
  captured.length = 0;
  workerLogs.length = 0;
  failNext = 0;
  service.config = null;
  service.configDelayMs = 0;
  service.configStatus = undefined;
  service.decide = { status: 200, body: {}, delayMs: 0 };
  service.verify = { status: 200, body: { verification: 'unknown', bot: null, maxAgeSeconds: 0 }, delayMs: 0 };
  service.requestsDelayMs = 0;
  service.requestsMaxBytes = Number.POSITIVE_INFINITY;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('withUnseen (workerd via miniflare)', () => {
  it('serves the origin response unchanged and sends one batch after N requests with cf fields', async () => {
    const mf = await start(await bundle('{ batchSize: 3, flushAfterMs: 60_000 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    const cf = {
      country: 'DE',
      asn: 3320,
      asOrganization: 'Deutsche Telekom',
      botManagement: { verifiedBot: true, score: 1 },
      tlsVersion: 'TLSv1.3',
    };
    const r1 = await mf.dispatchFetch('https://shop.example/a?x=1', {
      cf,
      headers: { 'user-agent': 'TestUA/1.0', 'cf-connecting-ip': '203.0.113.9' },
    });
    expect(r1.status).toBe(200);
    expect(r1.headers.get('x-origin')).toBe('yes');
    expect(r1.headers.get('cf-cache-status')).toBe('HIT');
    expect(await r1.text()).toBe('origin /a');
    const r2 = await mf.dispatchFetch('https://shop.example/missing', { method: 'POST', body: 'x' });
    expect(r2.status).toBe(404);
    await r2.text();
    const r3 = await mf.dispatchFetch('https://shop.example/c');
    await r3.text();
    // Nothing went before the third request: the first batch holds all three records (checked below).
    const batch = await waitFor(() => batches()[0]);
    // Nothing went after it either: the next batch to arrive is the next three requests', and the second.
    for (const path of ['/d', '/e', '/f']) await (await mf.dispatchFetch(`https://shop.example${path}`)).text();
    const next = await waitFor(() => batches()[1]);
    expect(batches()).toHaveLength(2);
    expect(JSON.parse(next.body).records.map((r: { path: string }) => r.path)).toEqual(['/d', '/e', '/f']);
    expect(batch.method).toBe('POST');
    expect(batch.headers['x-svc-proxy']).toBe(SECRET);
    expect(batch.headers['content-type']).toContain('application/json');
    const body = JSON.parse(batch.body);
    expect(RequestBatch.safeParse(body).success).toBe(true);
    expect(body.k).toBe(KEY);
    expect(body.records).toHaveLength(3);
    const [a, b, c] = body.records;
    expect(a).toMatchObject({
      method: 'GET',
      path: '/a',
      status: 200,
      cache: 'HIT',
      ip: '203.0.113.9',
      ua: 'TestUA/1.0',
      country: 'DE',
      asn: 3320,
      asOrg: 'Deutsche Telekom',
      verifiedBot: true,
      botScore: 1,
      tls: 'TLSv1.3',
    });
    expect(typeof a.at).toBe('number');
    expect(a.ms).toBeGreaterThanOrEqual(0);
    expect(b).toMatchObject({ method: 'POST', path: '/missing', status: 404, cache: 'HIT' });
    expect(c).toMatchObject({ method: 'GET', path: '/c', status: 200 });
  });

  it('flushes what is older than T on a later request', async () => {
    const mf = await start(await bundle('{ batchSize: 100, flushAfterMs: 300 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    await (await mf.dispatchFetch('https://shop.example/one')).text();
    // Real time: the record must grow older than T on workerd's own clock, which the test cannot move.
    await new Promise((r) => setTimeout(r, 400));
    expect(batches()).toHaveLength(0); // and nothing is sent without a request (the batch below holds /one)
    await (await mf.dispatchFetch('https://shop.example/two')).text();
    const batch = await waitFor(() => batches()[0]);
    const body = JSON.parse(batch.body);
    expect(body.records.map((r: { path: string }) => r.path)).toEqual(['/one', '/two']);
  });

  it('retries a failed send once, then drops it', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    failNext = 1;
    await (await mf.dispatchFetch('https://shop.example/r1')).text();
    await waitFor(() => (batches().length >= 2 ? true : undefined));
    expect(batches().map((b) => JSON.parse(b.body).records[0].path)).toEqual(['/r1', '/r1']);
    // The retry is the same batch to the service: the same id, so a send whose answer was lost is stored once.
    const [first, retry] = batches().map((b) => JSON.parse(b.body).b);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry).toBe(first);
    captured.length = 0;
    failNext = 5;
    const res = await mf.dispatchFetch('https://shop.example/r2');
    expect(await res.text()).toBe('origin /r2');
    await waitFor(() => (batches().length >= 2 ? true : undefined));
    // Dropped after its retry: the worker says so, and the next request's batch is the next to arrive.
    await waitFor(() => workerLogs.find((l) => l.includes('dropped a batch of 1 request records')));
    failNext = 0;
    await (await mf.dispatchFetch('https://shop.example/r3')).text();
    await waitFor(() => (batches().length >= 3 ? true : undefined));
    expect(batches().map((b) => JSON.parse(b.body).records[0].path)).toEqual(['/r2', '/r2', '/r3']);
    // Another batch, another id.
    expect(JSON.parse(batches()[2]?.body ?? '{}').b).not.toBe(JSON.parse(batches()[0]?.body ?? '{}').b);
  });

  it('keeps serving when the collect endpoint is down', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: 'http://127.0.0.1:9/collect',
    });
    for (let i = 0; i < 3; i++) {
      const res = await mf.dispatchFetch(`https://shop.example/p${i}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`origin /p${i}`);
    }
  });

  it('sends nothing without a secret', async () => {
    const mf = await start(await bundle('{ batchSize: 1, flushAfterMs: 0 }'), {
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    for (let i = 0; i < 3; i++) {
      const res = await mf.dispatchFetch(`https://shop.example/q${i}`);
      expect(await res.text()).toBe(`origin /q${i}`);
    }
    // The worker says it passes requests through unrecorded (it says so once, at the first request, and
    // returns at once: a send would have started before that answer came back).
    await waitFor(() => workerLogs.find((l) => l.includes('SVC_SECRET or SVC_SITE_KEY is not set')));
    expect(captured).toHaveLength(0);
  });

  // The fault: a fetch that failed escaped the handler (the platform's error page), and one that hung held the visitor.
  it('answers /_us/* with a 502 page when the service cannot be reached, as the Node middleware does', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: 'http://127.0.0.1:9/collect',
    });
    const res = await mf.dispatchFetch('https://shop.example/_us/pass?g=abc');
    expect(res.status).toBe(502);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('The protection service could not be reached. Please try again.\n');
  });

  it('forwards /_us/* to the service origin with the customer host in x-forwarded-host', async () => {
    const mf = await start(await bundle('{ batchSize: 1 }'), {
      SVC_SECRET: SECRET,
      SVC_SITE_KEY: KEY,
      SVC_COLLECT_URL: `${base}/collect`,
    });
    const res = await mf.dispatchFetch('https://shop.example/_us/internal?token=x', {
      headers: {
        cookie: 'session=shop-login; us_internal=v1.mark; cart=3',
        authorization: 'Bearer shop-token',
        'cf-connecting-ip': '198.51.100.7',
        'x-svc-client-ip': '6.6.6.6',
      },
      cf: { country: 'FR' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('service /_us/internal?token=x');
    expect(res.headers.get('set-cookie')).toContain('us_pass=abc');
    const fwd = captured.find((c) => c.url.startsWith('/_us/'))!;
    expect(fwd.url).toBe('/_us/internal?token=x');
    expect(fwd.headers['x-forwarded-host']).toBe('shop.example');
    // Only the service's own cookie: the shop's session and its Authorization never reach the service.
    expect(fwd.headers.cookie).toBe('us_internal=v1.mark');
    expect(fwd.headers.authorization).toBeUndefined();
    expect(fwd.headers['x-svc-proxy']).toBe(SECRET);
    expect(fwd.headers['x-svc-client-ip']).toBe('198.51.100.7');
    expect(fwd.headers['x-svc-client-country']).toBe('FR');
    // Not recorded as a site request: the first batch to arrive is the next request's (one record a batch).
    await (await mf.dispatchFetch('https://shop.example/after')).text();
    await waitFor(() => batches()[0]);
    expect(records().map((r) => r.path)).toEqual(['/after']);
  });
});

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const CURL = 'curl/8.5.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SITE = '0b9f1a52-8d0e-4a0c-9a56-3b0d6d3a1e11';
const CHECK = 'https://check.unseen.example/c';
const HOME_NET = { asn: 3320, asOrganization: 'Deutsche Telekom AG', country: 'DE' };
const CLOUD_NET = { asn: 16509, asOrganization: 'Amazon.com, Inc.', country: 'US' };

function config(over: Partial<ProtectionConfig> = {}): ProtectionConfig {
  return {
    site: SITE,
    mode: 'challenge',
    bots: 'allow',
    rules: [],
    passKey: newKey(),
    challengeUrl: CHECK,
    returnHosts: ['shop.example'],
    behaviour: { day: new Date().toISOString().slice(0, 10), dayKey: newKey(), flagged: {} },
    maxAgeSeconds: 60,
    ...over,
  };
}

const protectedEnv = () => ({ SVC_SECRET: SECRET, SVC_SITE_KEY: KEY, SVC_COLLECT_URL: `${base}/collect` });
const configFetches = () => captured.filter((c) => c.url === '/collect/protection');
const records = (): RequestRecord[] => batches().flatMap((b) => JSON.parse(b.body).records);

/** A worker in front of the test origin with the gate on, one record per batch. */
async function protectedWorker(options = '{ batchSize: 1 }'): Promise<Miniflare> {
  return start(await bundle(options), protectedEnv());
}

interface Visit {
  ua?: string;
  ip?: string;
  cf?: Record<string, unknown>;
  accept?: string;
  cookie?: string;
  method?: string;
  /** Sec-Fetch-Mode; default `navigate` for a browser, `none` (no header) for other software such as curl. */
  fetchMode?: string;
  headers?: Record<string, string>;
}

async function visit(mf: Miniflare, url: string, v: Visit = {}) {
  const headers: Record<string, string> = {
    'user-agent': v.ua ?? CHROME,
    'cf-connecting-ip': v.ip ?? '203.0.113.9',
    accept: v.accept ?? 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'x-test-fetch-mode': v.fetchMode ?? ((v.ua ?? CHROME).startsWith('Mozilla/') ? 'navigate' : 'none'),
    ...v.headers,
  };
  if (v.cookie) headers.cookie = v.cookie;
  const res = await mf.dispatchFetch(url, { method: v.method ?? 'GET', headers, cf: v.cf ?? HOME_NET, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** The record of the n-th site request (`/_us/*` are not recorded), waiting for it to arrive. */
const recordAt = (n: number) => waitFor(() => records()[n]);

describe('the gate in withUnseen (workerd via miniflare)', () => {
  it('challenge mode: a curl-like client is sent to the check page with a ticket for its host and path', async () => {
    const cfg = config();
    service.config = cfg;
    const mf = await protectedWorker();
    const nav = await visit(mf, 'https://shop.example/pricing?plan=pro', { ua: CURL, accept: 'text/html' });
    expect(nav.status).toBe(302);
    expect(nav.headers.get('cache-control')).toBe('no-store');
    const location = new URL(nav.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CHECK);
    const ticket = await readTicket(cfg.passKey, location.searchParams.get('t')!);
    expect(ticket).toMatchObject({ s: SITE, h: 'shop.example', p: '/pricing?plan=pro', r: 50 });
    expect(await readTicket(newKey(), location.searchParams.get('t')!)).toBeNull();

    // An API call (not a navigation) cannot be sent to a page: a plain 403 saying the check is needed.
    const api = await visit(mf, 'https://shop.example/api/cart', { ua: CURL, accept: 'application/json' });
    expect(api.status).toBe(403);
    expect(api.headers.get('content-type')).toContain('text/plain');
    expect(api.text).toContain('check');
    expect(api.text).not.toContain('origin');

    // A host the challenge may not return to: a 403 page, never a redirect to a ticket for it.
    const other = await visit(mf, 'https://not-verified.example/', { ua: CURL, accept: 'text/html' });
    expect(other.status).toBe(403);
    expect(other.headers.get('location')).toBeNull();
    expect(other.text).toContain('cannot send you back');

    await waitFor(() => (records().length >= 3 ? true : undefined));
    const reason = 'client software never runs page scripts: curl';
    expect(records()).toMatchObject([
      { path: '/pricing', status: 302, action: 'challenge', reason, risk: 50, tlsClass: 'tls1.3' },
      { path: '/api/cart', status: 403, action: 'challenge', reason, risk: 50 },
      // The decide endpoint's words; the hostname goes apart, for the site's setup problems.
      {
        path: '/',
        status: 403,
        action: 'challenge',
        reason: `${reason} (no check: not a verified hostname of the site, so a check could not return there)`,
        noReturnHost: 'not-verified.example',
      },
    ]);
    expect(records()[0]!.noReturnHost).toBeUndefined();
    expect(records()[1]!.noReturnHost).toBeUndefined();
    for (const b of batches()) expect(RequestBatch.safeParse(JSON.parse(b.body)).success).toBe(true);
    expect(configFetches()).toHaveLength(1);
  });

  it('block mode refuses it with our own small 403 page; robots.txt and security.txt are always served', async () => {
    service.config = config({ mode: 'block' });
    const mf = await protectedWorker();
    const r = await visit(mf, 'https://shop.example/pricing', {
      ua: CURL,
      accept: 'text/html',
      headers: { 'cf-ray': '8f1e2d3c4b5a6978-FRA' },
    });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.text).toContain('Access refused');
    expect(r.text).toContain('8f1e2d3c4b5a6978-FRA');
    expect(r.text).not.toMatch(/<script|<link|https?:\/\//);
    expect(r.text.length).toBeLessThan(2048);

    for (const path of ['/robots.txt', '/.well-known/security.txt']) {
      const ok = await visit(mf, `https://shop.example${path}`, { ua: CURL });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe(`origin ${path}`);
    }
    // The network alone never refuses anyone.
    const cloud = await visit(mf, 'https://shop.example/pricing', { cf: CLOUD_NET });
    expect(cloud.text).toBe('origin /pricing');

    await waitFor(() => (records().length >= 4 ? true : undefined));
    expect(records()).toMatchObject([
      { status: 403, action: 'deny', reason: 'client software never runs page scripts: curl', risk: 50 },
      { path: '/robots.txt', status: 200, action: 'allow', reason: 'always served: /robots.txt' },
      { path: '/.well-known/security.txt', status: 200, action: 'allow', reason: 'always served: /.well-known/security.txt' },
      { status: 200, action: 'allow', reason: 'hosting network: AS16509 (the network alone never refuses anyone)', risk: 35 },
    ]);
  });

  it('refuses an unverified "Googlebot" and serves a verified one', async () => {
    service.config = config();
    const mf = await protectedWorker();
    const fake = await visit(mf, 'https://shop.example/', {
      ua: GOOGLEBOT,
      cf: { ...CLOUD_NET, botManagement: { verifiedBot: false, score: 2 } },
    });
    expect(fake.status).toBe(403);
    expect(fake.text).toContain('Access refused');
    const real = await visit(mf, 'https://shop.example/', {
      ua: GOOGLEBOT,
      cf: { asn: 15169, asOrganization: 'Google LLC', country: 'US', botManagement: { verifiedBot: true, score: 1 } },
    });
    expect(real.text).toBe('origin /');
    // No bot-management data on this zone and no verdict from the service either: it follows `bots` (allow here).
    const unknown = await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, cf: { ...HOME_NET, botManagement: null } });
    expect(unknown.text).toBe('origin /');
    await waitFor(() => (records().length >= 3 ? true : undefined));
    expect(records()).toMatchObject([
      { status: 403, action: 'deny', reason: 'unverified claim to be Googlebot', risk: -1, verifiedBot: false },
      { status: 200, action: 'allow', reason: 'verified search engine: Googlebot', risk: -1, verifiedBot: true },
      { status: 200, action: 'allow', reason: 'declared bot: Googlebot (bots: allow)', risk: -1 },
    ]);
  });

  describe('crawler claims without a platform verdict: the service is asked', () => {
    const verifyCalls = () => captured.filter((c) => c.url === '/collect/verify');
    /** A zone without bot management (Miniflare's own `cf` has a bot-management verdict: taken away here). */
    const cf = { ...HOME_NET, botManagement: null };
    const answer = (verification: string, maxAgeSeconds: number, delayMs = 0) => {
      service.verify = { status: 200, body: { verification, bot: 'Googlebot', maxAgeSeconds }, delayMs };
    };

    it('asks POST {collectUrl}/verify with the address, user agent and budget, and keeps a verdict per address', async () => {
      service.config = config();
      const mf = await protectedWorker();
      answer('failed', 86_400);
      const fake = await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.7', cf });
      expect(fake.status).toBe(403);
      expect(fake.text).toContain('Access refused');
      expect(verifyCalls()).toHaveLength(1);
      const asked = verifyCalls()[0]!;
      expect(asked.method).toBe('POST');
      expect(asked.headers['x-svc-proxy']).toBe(SECRET);
      expect(JSON.parse(asked.body)).toEqual({ ip: '198.51.100.7', ua: GOOGLEBOT, budgetMs: 50 });
      // The same address again: the isolate's copy answers.
      expect((await visit(mf, 'https://shop.example/a', { ua: GOOGLEBOT, ip: '198.51.100.7', cf })).status).toBe(403);
      expect(verifyCalls()).toHaveLength(1);
      // Another address is asked about on its own.
      answer('verified', 86_400);
      expect((await visit(mf, 'https://shop.example/b', { ua: GOOGLEBOT, ip: '192.0.2.66', cf })).text).toBe('origin /b');
      expect(verifyCalls()).toHaveLength(2);
      // Never asked: browsers, bots no operator lets us verify, and claims the platform judged.
      await visit(mf, 'https://shop.example/c', { ip: '198.51.100.8' });
      await visit(mf, 'https://shop.example/d', { ua: 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)' });
      await visit(mf, 'https://shop.example/e', { ua: GOOGLEBOT, cf: { ...HOME_NET, botManagement: { verifiedBot: false } } });
      expect(verifyCalls()).toHaveLength(2);
      await waitFor(() => (records().length >= 6 ? true : undefined));
      expect(records().map((r) => r.reason)).toEqual([
        'unverified claim to be Googlebot',
        'unverified claim to be Googlebot',
        'verified search engine: Googlebot',
        'browser: no sign of automation',
        'declared bot: MJ12bot (bots: allow)',
        'unverified claim to be Googlebot',
      ]);
    });

    it('serves a claim the service cannot answer within 50 ms and asks again on the next request', async () => {
      service.config = config();
      const mf = await protectedWorker();
      // Warm the isolate's config first, so only the verdict can be late.
      await visit(mf, 'https://shop.example/warm');
      answer('failed', 86_400, 400);
      const started = Date.now();
      const first = await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.9', cf });
      expect(first.text).toBe('origin /');
      expect(Date.now() - started).toBeLessThan(400);
      answer('failed', 86_400);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.9', cf })).status).toBe(403);
      expect(verifyCalls()).toHaveLength(2);
    });

    it('keeps an "unknown" only as long as the service says, and a "still looking" not at all', async () => {
      service.config = config();
      const mf = await protectedWorker();
      answer('unknown', 0);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.10', cf })).status).toBe(200);
      answer('failed', 86_400);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.10', cf })).status).toBe(403);
      // DNS did not answer (kept a minute by the service): the isolate keeps it a few seconds, then asks again.
      answer('unknown', 60);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.11', cf })).status).toBe(200);
      answer('failed', 86_400);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.11', cf })).status).toBe(200);
      expect(verifyCalls()).toHaveLength(3);
      // An error answer or a service that is down: the claim follows `bots`, nothing is kept.
      service.verify = { status: 503, body: {}, delayMs: 0 };
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.12', cf })).status).toBe(200);
      answer('failed', 86_400);
      expect((await visit(mf, 'https://shop.example/', { ua: GOOGLEBOT, ip: '198.51.100.12', cf })).status).toBe(403);
    });
  });

  it('a valid us_pass serves that browser on that network; the same cookie from another network is challenged', async () => {
    const cfg = config();
    service.config = cfg;
    const mf = await protectedWorker();
    const cookie = `a=1; us_pass=${await issuePass(cfg.passKey, SITE, CHROME, '198.51.100.20')}`;
    const home = { ...CLOUD_NET }; // a browser on a hosting network is challenged unless it passed the check
    expect((await visit(mf, 'https://shop.example/p', { ip: '198.51.100.20', cf: home })).status).toBe(302);
    expect((await visit(mf, 'https://shop.example/p', { ip: '198.51.100.20', cf: home, cookie })).text).toBe('origin /p');
    expect((await visit(mf, 'https://shop.example/p', { ip: '198.51.100.77', cf: home, cookie })).text).toBe('origin /p');
    const elsewhere = await visit(mf, 'https://shop.example/p', { ip: '192.0.2.44', cf: home, cookie });
    expect(elsewhere.status).toBe(302);
    const otherBrowser = await visit(mf, 'https://shop.example/p', {
      ip: '198.51.100.20',
      cf: home,
      cookie,
      ua: CHROME.replace('131', '130'),
    });
    expect(otherBrowser.status).toBe(302);
    await waitFor(() => (records().length >= 5 ? true : undefined));
    expect(records().map((r) => [r.action, r.reason])).toEqual([
      ['challenge', 'hosting network: AS16509'],
      ['allow', 'check passed within the last day'],
      ['allow', 'check passed within the last day'],
      ['challenge', 'hosting network: AS16509'],
      ['challenge', 'hosting network: AS16509'],
    ]);
  });

  it('uses behaviour memory and the TLS sign: two automation signs challenge a browser', async () => {
    const cfg = config();
    const code = await behaviourCode(cfg.behaviour!.dayKey, '203.0.113.9', CHROME);
    cfg.behaviour!.flagged = { [code]: ['burst'] };
    service.config = cfg;
    const mf = await protectedWorker();
    // One sign (from memory) is not enough.
    expect((await visit(mf, 'https://shop.example/a')).text).toBe('origin /a');
    // A modern browser's user agent over TLS 1.0 is a second, independent sign.
    const old = await visit(mf, 'https://shop.example/b', {
      cf: { ...HOME_NET, tlsVersion: 'TLSv1', tlsCipher: 'ECDHE-RSA-AES128-SHA' },
    });
    expect(old.status).toBe(302);
    // Another visitor over TLS 1.0 has only that one sign.
    const other = await visit(mf, 'https://shop.example/c', {
      ip: '192.0.2.1',
      cf: { ...HOME_NET, tlsVersion: 'TLSv1', tlsCipher: 'ECDHE-RSA-AES128-SHA' },
    });
    expect(other.text).toBe('origin /c');
    await waitFor(() => (records().length >= 3 ? true : undefined));
    expect(records()).toMatchObject([
      { action: 'allow', reason: 'browser: no sign of automation', risk: 25, tlsClass: 'tls1.3' },
      { action: 'challenge', reason: 'automation signs: tls-mismatch, burst', risk: 50, tlsClass: 'tls-old' },
      { action: 'allow', reason: 'browser: no sign of automation', risk: 25, tlsClass: 'tls-old' },
    ]);
  });

  it('off and log modes serve everything and say so', async () => {
    service.config = config({ mode: 'off' });
    let mf = await protectedWorker();
    expect((await visit(mf, 'https://shop.example/x', { ua: CURL })).text).toBe('origin /x');
    const off = await recordAt(0);
    expect(off).toMatchObject({ action: 'allow', reason: 'off: protection is off' });
    expect(off.risk).toBeUndefined();
    await mf.dispose();
    instances.length = 0;
    captured.length = 0;

    service.config = config({ mode: 'log' });
    mf = await start(await bundle('{ batchSize: 1, configBudgetMs: 200 }'), {
      ...protectedEnv(),
      SVC_COLLECT_URL: `${base}/collect/`,
    });
    expect((await visit(mf, 'https://shop.example/y', { ua: CURL })).text).toBe('origin /y');
    expect(await recordAt(0)).toMatchObject({
      action: 'allow',
      reason: 'log: would challenge: client software never runs page scripts: curl',
      risk: 50,
    });
  });

  it('Global Privacy Control: a request sending Sec-GPC: 1 is decided like any other and never recorded', async () => {
    service.config = config({ mode: 'block' });
    const mf = await protectedWorker();
    const refused = await visit(mf, 'https://shop.example/private', { ua: CURL, headers: { 'sec-gpc': '1' } });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Access refused');
    const served = await visit(mf, 'https://shop.example/gpc-page', { headers: { 'sec-gpc': ' 1 ' } });
    expect(served.text).toBe('origin /gpc-page');
    // One record a batch: the first to arrive is the next request's, which sends no GPC ("0" is no signal).
    await visit(mf, 'https://shop.example/after', { headers: { 'sec-gpc': '0' } });
    await recordAt(0);
    expect(records().map((r) => r.path)).toEqual(['/after']);
  });

  it('a rule change reaches the worker after the config age, through a conditional refresh', async () => {
    service.config = config({ maxAgeSeconds: 1, rules: [{ action: 'deny', label: 'no secrets', match: { path: '/secret' } }] });
    const mf = await protectedWorker();
    expect((await visit(mf, 'https://shop.example/secret')).status).toBe(403);
    expect((await visit(mf, 'https://shop.example/secret')).status).toBe(403);
    expect(configFetches()).toHaveLength(1); // cached

    service.config = { ...service.config, rules: [] };
    // Real time: the copy must age past its 1 s on workerd's own clock, which the test cannot move.
    await new Promise((r) => setTimeout(r, 1100));
    // The stale copy decides this one while the refresh runs in the background…
    expect((await visit(mf, 'https://shop.example/secret')).status).toBe(403);
    await waitFor(() => (configFetches()[1]?.status ? true : undefined));
    expect(configFetches()[1]!.headers['if-none-match']).toBeTruthy();
    expect(configFetches()[1]!.status).toBe(200);
    // …and a request soon after sees the new rules (the isolate stores the answer just after the service
    // sent it: on a busy machine the very next request may still meet the old copy).
    let denied = 3;
    for (let i = 0; ; i++) {
      if ((await visit(mf, 'https://shop.example/secret')).text === 'origin /secret') break;
      denied += 1;
      if (i === 40) throw new Error('the new rules never reached the worker');
      await new Promise((r) => setTimeout(r, 50));
    }

    // Unchanged: the service answers 304 and the copy is kept (real time again, for the copy to age).
    await new Promise((r) => setTimeout(r, 1100));
    expect((await visit(mf, 'https://shop.example/secret')).text).toBe('origin /secret');
    await waitFor(() => (configFetches()[2]?.status ? true : undefined));
    expect(configFetches()[2]!.status).toBe(304);
    expect((await visit(mf, 'https://shop.example/secret')).text).toBe('origin /secret');
    expect(configFetches()).toHaveLength(3);
    await waitFor(() => (records().length >= denied + 3 ? true : undefined));
    expect(records().map((r) => r.reason)).toEqual([
      ...Array.from({ length: denied }, () => 'rule: no secrets'),
      'browser: no sign of automation',
      'browser: no sign of automation',
      'browser: no sign of automation',
    ]);
  });

  it('fails open: a service slower than the budget, an error answer, a broken config, a service that is down', async () => {
    // Slower than the budget: the first request is served without waiting for the config…
    service.config = config({ mode: 'block' });
    service.configDelayMs = 800;
    let mf = await protectedWorker();
    const t0 = Date.now();
    expect((await visit(mf, 'https://shop.example/1', { ua: CURL })).text).toBe('origin /1');
    expect(Date.now() - t0).toBeLessThan(600);
    // …so is one arriving while the fetch is still under way…
    expect((await visit(mf, 'https://shop.example/2', { ua: CURL })).text).toBe('origin /2');
    // …and once the config has arrived in the background, requests are decided (the isolate stores the answer
    // just after the service sent it: a request right then may still find it loading).
    await waitFor(() => (configFetches()[0]?.status ? true : undefined));
    let loading = 1;
    await waitFor(async () => {
      if ((await visit(mf, 'https://shop.example/3', { ua: CURL })).status === 403) return true;
      loading += 1;
      return undefined;
    });
    await waitFor(() => (records().length >= loading + 2 ? true : undefined));
    expect(records().map((r) => [r.action, r.reason])).toEqual([
      ['allow', 'fail open: no protection config within 50 ms'],
      ...Array.from({ length: loading }, () => ['allow', 'fail open: protection config still loading']),
      ['deny', 'client software never runs page scripts: curl'],
    ]);
    expect(configFetches()).toHaveLength(1);
    await mf.dispose();
    instances.length = 0;
    captured.length = 0;
    service.configDelayMs = 0;

    // An error answer: served, said so, and not asked again at once.
    service.configStatus = 503;
    mf = await protectedWorker();
    expect((await visit(mf, 'https://shop.example/4', { ua: CURL })).text).toBe('origin /4');
    expect((await visit(mf, 'https://shop.example/5', { ua: CURL })).text).toBe('origin /5');
    await waitFor(() => (records().length >= 2 ? true : undefined));
    expect(records().map((r) => r.reason)).toEqual([
      'fail open: protection config unavailable (service answered 503)',
      'fail open: protection config unavailable (service answered 503)',
    ]);
    expect(configFetches()).toHaveLength(1);
    await mf.dispose();
    instances.length = 0;
    captured.length = 0;
    service.configStatus = undefined;

    // A config the gate trips over (a rule naming bots by something that is not a name): served.
    service.config = config({ mode: 'block', rules: [{ action: 'deny', match: { bot: {} as string } }] });
    mf = await protectedWorker();
    expect((await visit(mf, 'https://shop.example/6', { ua: CURL })).text).toBe('origin /6');
    expect(await recordAt(0)).toMatchObject({ action: 'allow', reason: 'fail open: the gate failed (TypeError)' });
    await mf.dispose();
    instances.length = 0;

    // The service down altogether.
    mf = await start(await bundle('{ batchSize: 1 }'), { ...protectedEnv(), SVC_COLLECT_URL: 'http://127.0.0.1:9/collect' });
    for (let i = 0; i < 3; i++) expect((await visit(mf, `https://shop.example/d${i}`, { ua: CURL })).text).toBe(`origin /d${i}`);
  });
});

/** A verdict without its `done` callback, to compare as data. */
const plain = (verdict: ProtectVerdict) => {
  const { done: _done, ...rest } = verdict as ProtectVerdict & { done?: unknown };
  return rest;
};

describe('protect() for Node servers', () => {
  const input = (over: Partial<Parameters<typeof protect>[0]> = {}): Parameters<typeof protect>[0] => ({
    secret: SECRET,
    collectUrl: `${base}/collect`,
    ip: '203.0.113.9',
    method: 'GET',
    url: '/pricing?plan=pro',
    host: 'shop.example:443',
    headers: { 'user-agent': CURL, accept: 'text/html', cookie: 'a=1; us_pass=1767000000.abc' },
    country: 'de',
    asn: '3320',
    // What the service answers is the point of most cases: a loaded machine may take longer than the real 50 ms.
    budgetMs: 5000,
    ...over,
  });

  it('asks POST {collectUrl}/decide with the facts and the secret, and serves an allowed request', async () => {
    service.decide = { status: 200, body: { action: 'allow', reason: 'browser: no sign of automation', risk: 0 }, delayMs: 0 };
    expect(plain(await protect(input({ verifiedBot: false, tls: 'TLSv1.3' })))).toEqual({
      do: 'serve',
      action: 'allow',
      reason: 'browser: no sign of automation',
      risk: 0,
    });
    const asked = captured.find((c) => c.url === '/collect/decide')!;
    expect(asked.method).toBe('POST');
    expect(asked.headers['x-svc-proxy']).toBe(SECRET);
    expect(JSON.parse(asked.body)).toEqual({
      ip: '203.0.113.9',
      ua: CURL,
      path: '/pricing?plan=pro',
      host: 'shop.example',
      pass: '1767000000.abc',
      verifiedBot: false,
      country: 'DE',
      asn: 3320,
      tls: 'TLSv1.3',
      budgetMs: 5000,
    });
  });

  it('redirects a challenged navigation, refuses other challenged requests and denied ones with a 403 page', async () => {
    const location = `${CHECK}?t=abc.def`;
    service.decide = {
      status: 200,
      body: { action: 'challenge', reason: 'r', risk: 50, signals: [], challengeUrl: location },
      delayMs: 0,
    };
    expect(await protect(input())).toMatchObject({ do: 'redirect', status: 302, location, headers: { location } });
    const api = await protect(input({ headers: { 'user-agent': CURL, accept: 'application/json' } }));
    expect(api).toMatchObject({ do: 'refuse', status: 403, action: 'challenge' });
    expect(api.do === 'refuse' && api.headers['content-type']).toContain('text/plain');
    service.decide = { status: 200, body: { action: 'challenge', reason: 'r', risk: 50 }, delayMs: 0 };
    const noReturn = await protect(input());
    expect(noReturn.do === 'refuse' && noReturn.body).toContain('cannot send you back');
    service.decide = { status: 200, body: { action: 'deny', reason: 'rule: no', risk: 10 }, delayMs: 0 };
    const denied = await protect(input());
    expect(denied).toMatchObject({ do: 'refuse', status: 403, action: 'deny', reason: 'rule: no' });
    expect(denied.do === 'refuse' && denied.headers).toMatchObject({
      'cache-control': 'no-store',
      'content-type': 'text/html; charset=utf-8',
    });
  });

  it('fails open: slower than the budget, an error answer, an unreadable one, the service down', async () => {
    service.decide = { status: 200, body: { action: 'deny', reason: 'x', risk: 0 }, delayMs: 300 };
    const t0 = performance.now();
    expect(plain(await protect(input({ budgetMs: undefined })))).toEqual({
      do: 'serve',
      reason: 'fail open: no decision within 50 ms',
    });
    expect(performance.now() - t0).toBeLessThan(250);
    service.decide = { status: 500, body: {}, delayMs: 0 };
    expect(plain(await protect(input()))).toEqual({ do: 'serve', reason: 'fail open: service answered 500' });
    service.decide = { status: 200, body: { action: 'maybe' }, delayMs: 0 };
    expect(plain(await protect(input()))).toEqual({ do: 'serve', reason: 'fail open: unreadable answer' });
    expect(plain(await protect(input({ collectUrl: 'http://127.0.0.1:9/collect' })))).toEqual({
      do: 'serve',
      reason: 'fail open: service unreachable',
    });
  });

  // The attack: behind `trust proxy`, a visitor's own X-Forwarded-For became the address; one that is no address
  // made the service answer 400, and a 400 serves the request: every rule and check was off for that visitor.
  it('decides a visitor whose address is no address as one unknown address (0.0.0.0), never failing open', async () => {
    service.decide = { status: 200, body: { action: 'deny', reason: 'rule: no', risk: 10 }, delayMs: 0 };
    for (const ip of [
      'x',
      '',
      'a'.repeat(65),
      '203.0.113.9, 10.0.0.1',
      '::1x',
      '999.1.1.1',
      'ab:cd',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
    ]) {
      captured.length = 0;
      expect(await protect(input({ ip })), ip).toMatchObject({ do: 'refuse', action: 'deny' });
      expect(JSON.parse(captured.find((c) => c.url === '/collect/decide')!.body).ip, ip).toBe('0.0.0.0');
    }
    for (const ip of ['203.0.113.9', '2001:db8::7', '::ffff:203.0.113.9', '::', '1:2:3:4:5:6:7:8', '::1']) {
      captured.length = 0;
      await protect(input({ ip }));
      expect(JSON.parse(captured.find((c) => c.url === '/collect/decide')!.body).ip).toBe(ip);
    }
  });

  it('serves robots.txt, security.txt and /_us/* without asking', async () => {
    for (const url of ['/robots.txt', '/.well-known/security.txt?x', '/_us/pass?g=1']) {
      expect((await protect(input({ url }))).do).toBe('serve');
    }
    expect(captured.filter((c) => c.url === '/collect/decide')).toHaveLength(0);
  });
});

describe('protect() records', () => {
  /** A Node server's request to the shop, as protect() is given it, with the site key: recorded. */
  const input = (over: Partial<Parameters<typeof protect>[0]> = {}): Parameters<typeof protect>[0] => ({
    secret: SECRET,
    key: KEY,
    collectUrl: `${base}/collect`,
    ip: '203.0.113.9',
    method: 'get',
    url: '/pricing?plan=pro',
    host: 'shop.example',
    headers: { 'user-agent': CURL, accept: 'text/html' },
    country: 'de',
    asn: 3320,
    tls: 'TLSv1.3',
    budgetMs: 5000,
    batchSize: 3,
    flushAfterMs: 60_000,
    ...over,
  });
  const answer = (body: Record<string, unknown>) => {
    service.decide = { status: 200, body, delayMs: 0 };
  };

  it('records a redirected or refused request at once, a served one when done(status) is called, in batches of the size asked', async () => {
    answer({
      action: 'challenge',
      reason: 'client software never runs page scripts: curl',
      risk: 50,
      challengeUrl: `${CHECK}?t=a.b`,
    });
    expect((await protect(input())).do).toBe('redirect');
    answer({ action: 'deny', reason: 'rule: no', risk: 10 });
    expect((await protect(input({ url: '/admin', method: 'POST' }))).do).toBe('refuse');
    answer({ action: 'allow', reason: 'browser: no sign of automation', risk: 0 });
    const served = await protect(input({ url: '/shop/item?id=4', headers: { 'user-agent': CHROME, accept: 'text/html' } }));
    if (served.do !== 'serve') throw new Error(`served expected, got ${served.do}`);
    // Two queued: nothing sent before the third record.
    expect(batches()).toHaveLength(0);
    served.done(404);
    served.done(200); // only the first call counts
    const batch = await waitFor(() => batches()[0]);
    expect(batch.headers['x-svc-proxy']).toBe(SECRET);
    const body = JSON.parse(batch.body);
    expect(RequestBatch.safeParse(body).success).toBe(true);
    expect(body.k).toBe(KEY);
    expect(body.records).toMatchObject([
      {
        method: 'GET',
        path: '/pricing',
        status: 302,
        ip: '203.0.113.9',
        ua: CURL,
        country: 'DE',
        asn: 3320,
        tls: 'TLSv1.3',
        action: 'challenge',
        reason: 'client software never runs page scripts: curl',
        risk: 50,
      },
      { method: 'POST', path: '/admin', status: 403, action: 'deny', reason: 'rule: no', risk: 10 },
      {
        method: 'GET',
        path: '/shop/item',
        status: 404,
        ua: CHROME,
        action: 'allow',
        reason: 'browser: no sign of automation',
        risk: 0,
      },
    ]);
    expect(body.records[0].ms).toBeGreaterThanOrEqual(0);
    // A served request that fails open is recorded as served, saying so; robots.txt without asking.
    answer({});
    service.decide.status = 503;
    const failed = await protect(input({ batchSize: 2 }));
    const robots = await protect(input({ url: '/robots.txt', batchSize: 2 }));
    if (failed.do !== 'serve' || robots.do !== 'serve') throw new Error('served expected');
    failed.done(200);
    robots.done(200);
    await waitFor(() => batches()[1]);
    expect(JSON.parse(batches()[1]!.body).records).toMatchObject([
      { path: '/pricing', status: 200, action: 'allow', reason: 'fail open: service answered 503' },
      { path: '/robots.txt', status: 200, action: 'allow', reason: 'always served: /robots.txt' },
    ]);
  });

  it("records the service's verdict on a declared crawler when the platform gave none; the platform's own wins", async () => {
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    answer({ action: 'allow', reason: 'verified search engine: Googlebot', risk: -1, verifiedBot: true });
    const crawl = await protect(input({ batchSize: 3, headers: { 'user-agent': googlebot } }));
    if (crawl.do !== 'serve') throw new Error(`served expected, got ${crawl.do}`);
    expect(crawl).not.toHaveProperty('verifiedBot');
    crawl.done(200);
    answer({ action: 'deny', reason: 'unverified claim to be Googlebot', risk: -1, verifiedBot: false });
    expect((await protect(input({ batchSize: 3, url: '/fake', headers: { 'user-agent': googlebot } }))).do).toBe('refuse');
    answer({ action: 'allow', reason: 'verified search engine: Googlebot', risk: -1, verifiedBot: true });
    const told = await protect(input({ batchSize: 3, url: '/told', verifiedBot: false, headers: { 'user-agent': googlebot } }));
    if (told.do !== 'serve') throw new Error(`served expected, got ${told.do}`);
    told.done(200);
    const batch = await waitFor(() => batches()[0]);
    expect(JSON.parse(batch.body).records.map((r: RequestRecord) => [r.path, r.verifiedBot])).toEqual([
      ['/pricing', true],
      ['/fake', false],
      ['/told', false],
    ]);
  });

  it('sends records by age on a timer, without another request; flushRecords() sends what is left', async () => {
    answer({ action: 'allow', reason: 'browser: no sign of automation', risk: 0 });
    const first = await protect(input({ batchSize: 100, flushAfterMs: 200 }));
    if (first.do !== 'serve') throw new Error('served expected');
    first.done(200);
    const aged = await waitFor(() => batches()[0]);
    expect(JSON.parse(aged.body).records).toHaveLength(1);
    const later = await protect(input({ batchSize: 100, flushAfterMs: 60_000, url: '/later' }));
    if (later.do !== 'serve') throw new Error('served expected');
    later.done(200);
    expect(batches()).toHaveLength(1);
    await flushRecords();
    expect(batches()).toHaveLength(2);
    expect(JSON.parse(batches()[1]!.body).records.map((r: RequestRecord) => r.path)).toEqual(['/later']);
  });

  // The fault: a flush awaited only what was queued; batches a timer had sent were cut by the process.exit after it.
  it('flushRecords() also waits for the batches already on their way', async () => {
    answer({ action: 'allow', reason: 'browser: no sign of automation', risk: 0 });
    service.requestsDelayMs = 300;
    const first = await protect(input({ batchSize: 1 }));
    if (first.do !== 'serve') throw new Error('served expected');
    first.done(200);
    await waitFor(() => batches()[0]);
    await flushRecords();
    expect(batches().map((b) => b.answered)).toEqual([true]);
  });

  // The fault: a 413 (a batch over the service's 1 MB, long paths and user agents) dropped the whole batch.
  it('splits a batch the service finds too large and sends the halves, losing no record', async () => {
    answer({ action: 'allow', reason: 'browser: no sign of automation', risk: 0 });
    service.requestsMaxBytes = 2_500;
    for (let i = 0; i < 8; i++) {
      const served = await protect(input({ batchSize: 8, url: `/${i}-${'p'.repeat(400)}` }));
      if (served.do !== 'serve') throw new Error('served expected');
      served.done(200);
    }
    await flushRecords();
    const stored = batches()
      .filter((b) => b.status === 202)
      .flatMap((b) => JSON.parse(b.body).records.map((r: RequestRecord) => r.path[1]));
    expect(stored.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('Global Privacy Control, no site key, record: false, the service’s own paths: decided, never recorded', async () => {
    answer({ action: 'deny', reason: 'rule: no', risk: 10 });
    const gpc = await protect(input({ batchSize: 1, headers: { 'user-agent': CURL, 'sec-gpc': '1' } }));
    expect(gpc).toMatchObject({ do: 'refuse', action: 'deny' });
    expect((await protect(input({ batchSize: 1, key: undefined }))).do).toBe('refuse');
    expect((await protect(input({ batchSize: 1, record: false }))).do).toBe('refuse');
    answer({ action: 'allow', reason: 'browser: no sign of automation', risk: 0 });
    const quiet = await protect(input({ batchSize: 1, headers: { 'user-agent': CHROME, 'sec-gpc': '1' } }));
    const pass = await protect(input({ batchSize: 1, url: '/_us/pass?g=x' }));
    if (quiet.do !== 'serve' || pass.do !== 'serve') throw new Error('served expected');
    quiet.done(200);
    pass.done(302);
    // Every one of them was decided by the service…
    expect(captured.filter((c) => c.url === '/collect/decide')).toHaveLength(4);
    // …and the first batch to arrive is the next recorded request's.
    const next = await protect(input({ batchSize: 1, url: '/next' }));
    if (next.do !== 'serve') throw new Error('served expected');
    next.done(200);
    await waitFor(() => batches()[0]);
    expect(records().map((r) => r.path)).toEqual(['/next']);
  });
});

describe('protectMiddleware on node:http', () => {
  let shop: Server;
  let shopUrl = '';
  let gate: ReturnType<typeof protectMiddleware>;

  beforeAll(async () => {
    gate = protectMiddleware({ secret: SECRET, key: KEY, collectUrl: `${base}/collect`, budgetMs: 5000, batchSize: 1 });
    shop = createServer((req, res) =>
      gate(req, res, () => {
        res.statusCode = req.url === '/missing' ? 404 : 200;
        res.end(`shop ${req.url}`);
      }),
    );
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => shop.close(r));
  });

  it('answers refusals itself, passes served requests on and records each with the status its response had', async () => {
    service.decide = { status: 200, body: { action: 'deny', reason: 'rule: no', risk: 10 }, delayMs: 0 };
    const refused = await fetch(`${shopUrl}/admin`, { headers: { 'user-agent': CURL, accept: 'text/html' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.text()).toContain('Access refused');
    await waitFor(() => batches()[0]);
    service.decide = { status: 200, body: { action: 'allow', reason: 'browser: no sign of automation', risk: 0 }, delayMs: 0 };
    const missing = await fetch(`${shopUrl}/missing`, { headers: { 'user-agent': CHROME } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('shop /missing');
    await waitFor(() => batches()[1]);
    expect(records()).toMatchObject([
      { path: '/admin', status: 403, action: 'deny', reason: 'rule: no', ip: '127.0.0.1', ua: CURL },
      { path: '/missing', status: 404, action: 'allow', reason: 'browser: no sign of automation', ua: CHROME },
    ]);
    const asked = captured.filter((c) => c.url === '/collect/decide').map((c) => JSON.parse(c.body));
    expect(asked[0]).toMatchObject({ ip: '127.0.0.1', ua: CURL, path: '/admin', host: '127.0.0.1' });
  });

  it('forwards /_us/* to the service vouching for the visitor, Set-Cookie back, without deciding or recording it', async () => {
    const res = await fetch(`${shopUrl}/_us/pass?g=abc`, {
      headers: { cookie: 'a=1', authorization: 'Basic c2hvcDpzZWNyZXQ=', 'x-svc-client-ip': '6.6.6.6', 'x-svc-proxy': 'forged' },
      redirect: 'manual',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('service /_us/pass?g=abc');
    expect(res.headers.get('set-cookie')).toContain('us_pass=abc');
    const fwd = captured.find((c) => c.url.startsWith('/_us/'))!;
    expect(fwd.headers['x-forwarded-host']).toBe(new URL(shopUrl).host);
    expect(fwd.headers['x-svc-proxy']).toBe(SECRET);
    expect(fwd.headers['x-svc-client-ip']).toBe('127.0.0.1');
    // The shop's own cookies and credentials stay with the shop.
    expect(fwd.headers.cookie).toBeUndefined();
    expect(fwd.headers.authorization).toBeUndefined();
    expect(captured.filter((c) => c.url === '/collect/decide')).toHaveLength(0);
    await gate.flush();
    expect(batches()).toHaveLength(0);
  });
});

describe('proxyHeaders', () => {
  it('builds the proxy-mode headers', () => {
    expect(
      proxyHeaders({ secret: SECRET, clientIp: '203.0.113.9', country: 'de', asn: 3320, asOrg: 'Deutsche Telekom' }),
    ).toEqual({
      'x-svc-proxy': SECRET,
      'x-svc-client-ip': '203.0.113.9',
      'x-svc-client-country': 'DE',
      'x-svc-client-asn': '3320',
      'x-svc-client-as-org': 'Deutsche Telekom',
    });
  });

  it('leaves out unknown or malformed values', () => {
    expect(proxyHeaders({ secret: SECRET, clientIp: '198.51.100.1', country: 'XYZ', asn: 'abc', asOrg: '' })).toEqual({
      'x-svc-proxy': SECRET,
      'x-svc-client-ip': '198.51.100.1',
    });
    expect(proxyHeaders({ secret: SECRET, clientIp: null })).toEqual({ 'x-svc-proxy': SECRET });
  });

  it("passes the visitor's TLS version on (x-svc-client-tls), never a line break", () => {
    expect(proxyHeaders({ secret: SECRET, tls: 'TLSv1.3' })).toEqual({ 'x-svc-proxy': SECRET, 'x-svc-client-tls': 'TLSv1.3' });
    expect(proxyHeaders({ secret: SECRET, tls: 'TLSv1.2\r\nx-evil: 1' })).toEqual({
      'x-svc-proxy': SECRET,
      'x-svc-client-tls': 'TLSv1.2x-evil: 1',
    });
    expect(proxyHeaders({ secret: SECRET, tls: '' })).toEqual({ 'x-svc-proxy': SECRET });
  });
});

// The attack: a service that takes connections and answers slowly. Every full batch started another send, each
// held for undici's 300 s with its records: memory grew with the request rate.
describe('request records from a Node server to a slow service', () => {
  it(`keeps at most ${MAX_IN_FLIGHT} batches in flight; the others wait queued and go as sends end`, async () => {
    const held: import('node:http').ServerResponse[] = [];
    const paths: string[] = [];
    let most = 0;
    const slow = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        for (const r of JSON.parse(body).records as { path: string }[]) paths.push(r.path);
        held.push(res);
        most = Math.max(most, held.length);
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const target = {
        collectUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/collect`,
        key: KEY,
        secret: 'sk_live_slowservice1',
      };
      const timing = batchTiming({ batchSize: 1, flushAfterMs: 10 });
      for (let i = 0; i < 20; i++) {
        enqueueRecord(target, { at: Date.now(), method: 'GET', path: `/p${i}`, status: 200, ms: 1 }, timing, { timer: true });
      }
      while (paths.length < 20) {
        await waitFor(() => (held.length >= MAX_IN_FLIGHT || paths.length === 20 ? true : undefined));
        for (const res of held.splice(0)) res.writeHead(202).end();
      }
      expect(most).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      expect(new Set(paths).size).toBe(20);
    } finally {
      for (const res of held.splice(0)) res.writeHead(202).end();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
