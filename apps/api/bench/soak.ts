// Soak: BENCH_SOAK_SECONDS (default 600) of mixed traffic at a steady, moderate rate against the API
// child (soak-traffic.ts: page reports from many addresses, edge request batches, API and MCP reads,
// stats over a small site). It reports, per kind, errors and latency over the run and in its first and
// last window (drift); the API process's memory at start, after warm-up and at the end against a bound;
// and whether every acknowledged page report and request record is in PostgreSQL after a flush.

import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type AnalyticsTable, createOrm, type Orm, SiteKey, Workspace } from '@us/db';
import { scopesOfRole } from '@us/shared';
import { ensureAccount, ensureSite } from '../scripts/seed/accounts.ts';
import { deleteTraffic, generateTraffic } from '../scripts/seed/generate.ts';
import { createKeyRow } from '../src/features/site-keys/keys.ts';
import { issueToken } from '../src/features/tokens/issue.ts';
import { runRollups } from '../src/jobs/index.ts';
import type { ApiInfo } from './api-server.ts';
import { askChild } from './child.ts';
import type { LoadRequest } from './load.ts';
import { type Answer, type SoakTarget, type TrafficKind, trafficKinds, VISITORS } from './soak-traffic.ts';

/**
 * Allowed growth of the API process from the end of warm-up to the end of the run, measured after a
 * full GC. Heap: the soak sends ~80k requests after warm-up, so 16 MB catches a leak of ~200 bytes per
 * request, while caches, JIT code and the bounded write buffer level off within the warm-up. RSS also
 * carries allocator and code-space slack the heap does not show, hence four times that.
 */
const HEAP_GROWTH_BOUND_MB = 16;
const RSS_GROWTH_BOUND_MB = 64;
/** A kind with this many requests still unanswered is late; further sends are skipped and counted. */
const MAX_IN_FLIGHT = 64;
const REQUEST_TIMEOUT_MS = 30_000;
const STATS_SITE_PAGEVIEWS = 50_000;
const STATS_DAYS = 30;
const TICK_MS = 10;

type Log = (s: string) => void;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => bytes / 1024 / 1024;

// ————— set-up —————

/**
 * The soak's own workspace (on a paid plan, so the Free plan's pause of request logging never turns
 * an acknowledged batch into nothing stored), its token, the collect site emptied of earlier runs with
 * a fresh server secret, and the small stats site (generated once, rolled up now rather than by the
 * hourly job in the middle of a run).
 */
async function prepareSoak(orm: Orm, log: Log): Promise<SoakTarget & { collectSiteId: string }> {
  const em = orm.em.fork();
  const { user, workspace } = await ensureAccount(em, {
    email: 'bench@example.test',
    password: 'bench-password-123',
    workspaceName: 'Soak bench',
  });
  await em.nativeUpdate(Workspace, { id: workspace.id }, { plan: 'Growth' });
  const { secret: token } = await issueToken(em, {
    workspaceId: workspace.id,
    createdBy: user.id,
    name: 'soak',
    scopes: scopesOfRole('owner'),
    expiresAt: new Date(Date.now() + 86_400_000),
  });
  const hostname = 'soak.bench.example';
  const collect = await ensureSite(em, { workspaceId: workspace.id, name: 'Soak collect', hostname, timezone: 'UTC' });
  await deleteTraffic(orm, collect.site.id);
  await em.nativeDelete(SiteKey, { site: collect.site.id, kind: 'secret' });
  const { value: secret } = createKeyRow(em, collect.site.id, 'secret');
  await em.flush();
  const statsSiteId = await ensureSmallStatsSite(orm, workspace.id, log);
  return {
    token,
    collect: { publicKey: collect.publicKey, secret, hostname },
    collectSiteId: collect.site.id,
    statsSiteId,
    statsDays: STATS_DAYS,
  };
}

/** The small site the soak reads stats from: generated when it lacks most of its pageviews, then rolled up. */
async function ensureSmallStatsSite(orm: Orm, workspaceId: string, log: Log): Promise<string> {
  const { site } = await ensureSite(orm.em.fork(), {
    workspaceId,
    name: 'Soak stats',
    hostname: 'soak-stats.bench.example',
    timezone: 'UTC',
  });
  const [have] = await orm.em
    .getConnection()
    .execute<{ n: string }[]>(
      `select count(*) as n from pageviews where site_id = ? and at > now() - interval '${STATS_DAYS} days'`,
      [site.id],
      'all',
    );
  if (Number(have?.n ?? 0) < STATS_SITE_PAGEVIEWS * 0.8) {
    log(`  generating the soak's stats site: ${STATS_SITE_PAGEVIEWS.toLocaleString('en')} pageviews over ${STATS_DAYS} days`);
    await deleteTraffic(orm, site.id);
    await generateTraffic(orm, {
      siteId: site.id,
      timezone: 'UTC',
      days: STATS_DAYS,
      pageviews: STATS_SITE_PAGEVIEWS,
      jobs: 1,
      seed: 'soak',
    });
  }
  for (;;) {
    const run = await runRollups(orm, { siteIds: [site.id], wait: true });
    if (!run.more) break;
  }
  return site.id;
}

// ————— traffic —————

interface Tally {
  sent: number;
  answered: number;
  errors: number;
  firstError?: string;
  skipped: number;
  /** Sent again after a stale keep-alive connection. */
  resent: number;
  inFlight: number;
  /** Per answered request: seconds since the start, and latency in ms. */
  at: number[];
  ms: number[];
}

const newTally = (): Tally => ({ sent: 0, answered: 0, errors: 0, skipped: 0, resent: 0, inFlight: 0, at: [], ms: [] });

/** A request failed before any answer on a kept-alive connection the server had just closed. */
class StaleConnection extends Error {}

function send(base: URL, agent: http.Agent, req: LoadRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: base.hostname, port: base.port, method: req.method, path: req.path, headers: req.headers, agent },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (body.length < 8192) body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    r.setTimeout(REQUEST_TIMEOUT_MS, () => r.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
    r.on('error', (e: NodeJS.ErrnoException) =>
      reject(r.reusedSocket && e.code === 'ECONNRESET' ? new StaleConnection(e.message) : e),
    );
    r.end(req.body);
  });
}

/**
 * Sends once more when a reused keep-alive connection turns out closed (the server's idle timeout
 * crossing the client's reuse, more likely on a loaded machine), as browsers and Node's documentation
 * do; the server never read that request. Counted, so a flood of them stays visible.
 */
async function sendRetryingStale(base: URL, agent: http.Agent, req: LoadRequest, tally: Tally): Promise<Answer> {
  try {
    return await send(base, agent, req);
  } catch (e) {
    if (!(e instanceof StaleConnection)) throw e;
    tally.resent += 1;
    return send(base, agent, req);
  }
}

/** One request of `kind`, recorded in `tally` when it ends; never throws. */
async function fire(base: URL, agent: http.Agent, kind: TrafficKind, tally: Tally, t0: number): Promise<void> {
  const t = performance.now();
  tally.sent += 1;
  tally.inFlight += 1;
  try {
    const answer = await sendRetryingStale(base, agent, kind.next(), tally);
    tally.at.push((t - t0) / 1000);
    tally.ms.push(performance.now() - t);
    if (kind.ok(answer)) tally.answered += 1;
    else {
      tally.errors += 1;
      tally.firstError ??= `at ${((t - t0) / 1000).toFixed(0)} s: HTTP ${answer.status} ${answer.body.slice(0, 120)}`;
    }
  } catch (e) {
    tally.errors += 1;
    tally.firstError ??= `at ${((t - t0) / 1000).toFixed(0)} s: ${String(e)}`;
  } finally {
    tally.inFlight -= 1;
  }
}

/**
 * Open-loop load: every kind is sent at its own rate whatever the answers' pace (a slow answer does not
 * slow the arrivals down, as with real visitors), on its own keep-alive connections, for `seconds`.
 */
async function drive(baseUrl: string, kinds: TrafficKind[], seconds: number): Promise<Tally[]> {
  const base = new URL(baseUrl);
  const agents = kinds.map(() => new http.Agent({ keepAlive: true, maxSockets: 32 }));
  const tallies = kinds.map(newTally);
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  for (;;) {
    const elapsed = (performance.now() - t0) / 1000;
    if (elapsed >= seconds) break;
    kinds.forEach((kind, i) => {
      const tally = tallies[i] as Tally;
      // Catch up to the schedule, so timer jitter does not lower the rate.
      for (let due = Math.floor(elapsed * kind.perSecond) - tally.sent - tally.skipped; due > 0; due--) {
        if (tally.inFlight >= MAX_IN_FLIGHT) {
          tally.skipped += 1;
          continue;
        }
        const p = fire(base, agents[i] as http.Agent, kind, tally, t0);
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
    });
    await sleep(TICK_MS);
  }
  await Promise.all(pending);
  for (const a of agents) a.destroy();
  return tallies;
}

// ————— figures —————

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Latencies of the requests sent within [from, to) seconds of the start. */
function within(t: Tally, from: number, to: number): number[] {
  return t.ms.filter((_, i) => (t.at[i] as number) >= from && (t.at[i] as number) < to);
}

function formatHeader(seconds: number, rate: number, loadAtStart: number): string {
  const load = `load average ${loadAtStart.toFixed(1)} → ${(loadavg()[0] as number).toFixed(1)} on ${availableParallelism()} cores`;
  return (
    `soak: ${seconds} s of mixed traffic, ${rate} req/s in all; page reports from ${VISITORS.toLocaleString('en')} addresses ` +
    `through the proxy headers, stats of a ${(STATS_SITE_PAGEVIEWS / 1000).toFixed(0)}k-pageview site (${load}):`
  );
}

function formatKind(kind: TrafficKind, t: Tally, seconds: number, window: number): string {
  const first = percentile(within(t, 0, window), 99);
  const last = percentile(within(t, seconds - window, seconds), 99);
  const late = t.skipped ? `   ${t.skipped} not sent (${MAX_IN_FLIGHT} in flight)!` : '';
  const resent = t.resent ? `   ${t.resent} resent (stale keep-alive)` : '';
  const error = t.firstError ? `   first error: ${t.firstError}` : '';
  return (
    `${`  ${kind.name}`.padEnd(34)} ${(t.sent / seconds).toFixed(1).padStart(7)} req/s   p50 ${percentile(t.ms, 50).toFixed(2).padStart(6)} ms   ` +
    `p99 ${percentile(t.ms, 99).toFixed(2).padStart(6)} ms   errors ${t.errors} of ${t.sent.toLocaleString('en')}   ` +
    `p99 first/last ${window} s ${first.toFixed(2)} / ${last.toFixed(2)} ms (${(last / first).toFixed(2)}×)${late}${resent}${error}`
  );
}

function formatMemory(name: string, pick: (m: NodeJS.MemoryUsage) => number, bound: number, m: NodeJS.MemoryUsage[]): string {
  const [start, warm, end] = m.map((x) => mb(pick(x))) as [number, number, number];
  const growth = end - warm;
  return (
    `${`  ${name}`.padEnd(34)} start ${start.toFixed(0)} MB   after warm-up ${warm.toFixed(0)} MB   end ${end.toFixed(0)} MB   ` +
    `growth ${growth.toFixed(1)} MB, bound ${bound} MB: ${growth <= bound ? 'ok' : 'OVER'}`
  );
}

/** Rows the soak's collect site holds in each raw table the traffic writes to. */
async function storedRows(orm: Orm, siteId: string, kinds: TrafficKind[]): Promise<Map<AnalyticsTable, number>> {
  const conn = orm.em.getConnection();
  const counts = new Map<AnalyticsTable, number>();
  for (const table of new Set(kinds.flatMap((k) => (k.stores ? [k.stores.table] : [])))) {
    const [row] = await conn.execute<{ n: string }[]>(`select count(*) as n from ${table} where site_id = ?`, [siteId], 'all');
    counts.set(table, Number(row?.n ?? 0));
  }
  return counts;
}

function formatStored(kinds: TrafficKind[], tallies: Tally[], stored: Map<AnalyticsTable, number>): string[] {
  return kinds.flatMap((kind, i) => {
    if (!kind.stores) return [];
    const acknowledged = (tallies[i] as Tally).answered * kind.stores.rows;
    const have = stored.get(kind.stores.table) ?? 0;
    const verdict =
      have === acknowledged ? '0 lost' : have < acknowledged ? `${acknowledged - have} LOST` : `${have - acknowledged} extra`;
    return [
      `${`  stored ${kind.stores.table}`.padEnd(34)} ${have.toLocaleString('en')} of ${acknowledged.toLocaleString('en')} acknowledged rows: ${verdict}`,
    ];
  });
}

// ————— the section —————

/** Runs the soak against the API child and returns the lines to print. */
export async function runSoak(api: { info: ApiInfo; proc: ChildProcess }, seconds: number, log: Log): Promise<string[]> {
  // The first and last window show drift; the first is also the warm-up the memory growth starts after.
  const window = Math.min(60, Math.max(5, Math.floor(seconds / 5)));
  const orm = await createOrm(api.info.dbUrl, { poolMax: 2 });
  try {
    const target = await prepareSoak(orm, log);
    const kinds = trafficKinds(target);
    const memory = () => askChild<NodeJS.MemoryUsage>(api.proc, 'memory');
    const rate = kinds.reduce((a, k) => a + k.perSecond, 0);
    log(`› soak: ${seconds} s at ${rate} req/s (warm-up and drift window ${window} s)`);
    // The machine's load beside the figures: on a shared machine other work moves the latencies.
    const loadAtStart = loadavg()[0] as number;
    const atStart = await memory();
    const traffic = drive(api.info.url, kinds, seconds);
    await sleep(window * 1000);
    const afterWarmUp = await memory();
    const tallies = await traffic;
    await askChild(api.proc, 'flush');
    const atEnd = await memory();
    const stored = await storedRows(orm, target.collectSiteId, kinds);
    const mem = [atStart, afterWarmUp, atEnd];
    return [
      formatHeader(seconds, rate, loadAtStart),
      ...kinds.map((k, i) => formatKind(k, tallies[i] as Tally, seconds, window)),
      formatMemory('API rss (after GC)', (m) => m.rss, RSS_GROWTH_BOUND_MB, mem),
      formatMemory('API heap used (after GC)', (m) => m.heapUsed, HEAP_GROWTH_BOUND_MB, mem),
      ...formatStored(kinds, tallies, stored),
    ];
  } finally {
    await orm.close();
  }
}
