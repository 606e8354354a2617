import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** Every answered request's latency in ms, sorted (for combining rounds: `combineResults`). */
  latencies: number[];
  /** How long the load ran. */
  seconds: number;
  /** The errors by kind ('status 503', 'closed before an answer'), where the load told them apart. */
  errorKinds?: Record<string, number>;
  /**
   * Each answered request's scheduled start (`performance.now()` ms) and latency, in the order answered, where
   * the load kept them (the lean pacer): to tell the requests due during some stretch from the others.
   */
  timeline?: { scheduled: Float64Array; latency: Float64Array };
}

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Throughput and latency percentiles of a load that began at `started`. */
function resultOf(latencies: number[], errors: number, started: number): LoadResult {
  return summarise(latencies, errors, (performance.now() - started) / 1000);
}

/** Throughput and latency percentiles of `latencies` (sorted in place) answered in `seconds`. */
export function summarise(latencies: number[], errors: number, seconds: number, errorKinds?: Record<string, number>): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    ...(errorKinds && { errorKinds }),
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
    seconds,
  };
}

/** Requests due in some stretches of time and those due outside them: how many of each, and their p99. */
export interface WindowSplit {
  inside: { requests: number; p99: number };
  outside: { requests: number; p99: number };
}

/**
 * The answered requests of `runs` (their `timeline`s) split by whether each was due within one of `windows`
 * (`[start, end]` in `performance.now()` ms, in order, not overlapping), e.g. while a rollup step ran.
 */
export function splitByWindows(runs: readonly LoadResult[], windows: readonly (readonly [number, number])[]): WindowSplit {
  const inside: number[] = [];
  const outside: number[] = [];
  for (const r of runs) {
    if (!r.timeline) throw new Error('a load without a timeline (only the lean pacer keeps one)');
    const { scheduled, latency } = r.timeline;
    for (let i = 0; i < scheduled.length; i++) {
      const t = scheduled[i] as number;
      const within = windows.some(([a, b]) => t >= a && t <= b);
      (within ? inside : outside).push(latency[i] as number);
    }
  }
  inside.sort((a, b) => a - b);
  outside.sort((a, b) => a - b);
  return {
    inside: { requests: inside.length, p99: percentile(inside, 99) },
    outside: { requests: outside.length, p99: percentile(outside, 99) },
  };
}

/** Several runs of one load as one: their requests over their summed time, percentiles of all latencies. */
export function combineResults(runs: readonly LoadResult[]): LoadResult {
  return summarise(
    runs.flatMap((r) => r.latencies),
    runs.reduce((n, r) => n + r.errors, 0),
    runs.reduce((n, r) => n + r.seconds, 0),
    runs.some((r) => r.errorKinds) ? addedKinds(runs) : undefined,
  );
}

/** The runs' errors by kind, added up. */
function addedKinds(runs: readonly LoadResult[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const r of runs) for (const [k, n] of Object.entries(r.errorKinds ?? {})) kinds[k] = (kinds[k] ?? 0) + n;
  return kinds;
}

/** A result's errors, with their kinds when known: `8 (closed before an answer ×6, status 503 ×2)`. */
export function formatErrors(r: LoadResult): string {
  const kinds = Object.entries(r.errorKinds ?? {});
  return kinds.length && r.errors ? `${r.errors} (${kinds.map(([k, n]) => `${k} ×${n}`).join(', ')})` : String(r.errors);
}

/**
 * Sends one request and, once its answer has ended, records the time since `from`; answers whether
 * it was no error (a status under 400).
 */
function send(url: URL, req: LoadRequest, agent: http.Agent, from: number, latencies: number[]): Promise<boolean> {
  return new Promise((resolve) => {
    const r = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - from);
          resolve((res.statusCode ?? 500) < 400);
        });
      },
    );
    r.on('error', () => resolve(false));
    if (req.body) r.write(req.body);
    r.end();
  });
}

/**
 * Closed-loop load on 127.0.0.1: `concurrency` keep-alive connections each sending the next request
 * as soon as the previous answer ends, for `seconds`. Bounded in time; traffic stays on loopback.
 */
export async function runLoad(
  baseUrl: string,
  req: LoadRequest,
  opts: { seconds: number; concurrency: number },
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + opts.seconds * 1000;
  const one = () =>
    send(url, req, agent, performance.now(), latencies).then((ok) => {
      if (!ok) errors++;
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  agent.destroy();
  return resultOf(latencies, errors, started);
}

/**
 * Open-loop load: `rate` requests a second for `seconds`, each sent on schedule whether or not earlier ones
 * were answered (as independent visitors arrive), and timed from its scheduled start, so a server that
 * falls behind shows in the latencies instead of slowing the load down. At most `maxSockets` at a time.
 */
export async function runPaced(
  baseUrl: string,
  req: LoadRequest,
  opts: { rate: number; seconds: number; maxSockets?: number },
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 256 });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.round(opts.rate * opts.seconds);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    // Every request due by now goes out; then a short wait (timers are ~1 ms apart at best).
    const now = performance.now();
    while (sent < total && started + (sent * 1000) / opts.rate <= now) {
      pending.push(
        send(url, req, agent, started + (sent * 1000) / opts.rate, latencies).then((ok) => {
          if (!ok) errors++;
        }),
      );
      sent++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  agent.destroy();
  return resultOf(latencies, errors, started);
}

export function formatRow(name: string, r: LoadResult, baseline?: LoadResult) {
  const ratio = baseline ? `  ${((r.rps / baseline.rps) * 100).toFixed(1)}% of bare http` : '';
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   errors ${formatErrors(r)}${ratio}`;
}

/** An MCP `tools/call` of `tool` (no arguments) with a bearer token, as an MCP client sends it. */
export function mcpToolCall(token: string, tool: string): LoadRequest {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: {},
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      // With its length, as an MCP client's fetch sends it (Node's client would otherwise send it chunked).
      'content-length': String(Buffer.byteLength(body)),
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body,
  };
}
