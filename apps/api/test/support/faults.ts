import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createOrm, freePort, migrate, type Orm, startEmbeddedPostgres } from '@us/db';
import { Redis } from 'ioredis';
import { expect, vi } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../../../../scripts/redis-cluster.ts';
import type { Logger } from '../../src/core/logger.ts';
import { API_NODE_FLAGS, API_PROCESS_ENV, API_SOURCE_FLAGS } from '../../src/core/node-flags.ts';

/**
 * Fault-injection support: a PostgreSQL or a redis-server of the test's own (the suite's shared ones are
 * never stopped), a stream of page reports that records every answer, and the real server as a child
 * process. The promise every fault test checks: each report answered 202 is stored afterwards, other
 * answers are problem+json, no 5xx but 503 with Retry-After, and nothing crashes.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 200 ms until it returns true or `ms` passes; returns whether it did. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await Promise.resolve()
      .then(check)
      .catch(() => false);
    if (ok) return true;
    if (Date.now() > until) return false;
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL of the test's own

export interface OwnPostgres {
  url: string;
  port: number;
  /** Stops the server (fast shutdown: open connections are cut). */
  stop(): Promise<void>;
  /** Starts it again on the same data folder and port. */
  start(): Promise<void>;
  /** Stops it if running and removes its files. */
  remove(): Promise<void>;
}

/** An embedded PostgreSQL in a temporary folder, migrated. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-fault-pg-'));
  const port = await freePort();
  let db = await startEmbeddedPostgres({ dataDir: dir, port, database: 'faults' });
  let running = true;
  const orm = await createOrm(db.url, { poolMax: 1 });
  await migrate(orm);
  await orm.close();
  return {
    url: db.url,
    port,
    async stop() {
      if (!running) return;
      running = false;
      await db.stop();
    },
    async start() {
      if (running) return;
      db = await startEmbeddedPostgres({ dataDir: dir, port, database: 'faults' });
      running = true;
    },
    async remove() {
      if (running) await db.stop().catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A database of its own on the suite's PostgreSQL server (for a real server whose jobs touch every site),
 * migrated unless told otherwise (`migrated: false`: empty, for a server that migrates it at start-up).
 */
export async function createOwnDatabase(
  suiteUrl: string,
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `fault_${randomBytes(6).toString('hex')}`;
  const admin = await createOrm(suiteUrl, { poolMax: 1 });
  await admin.em.getConnection().execute(`create database ${name}`);
  const u = new URL(suiteUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  if (opts.migrated ?? true) {
    const orm = await createOrm(url, { poolMax: 1 });
    await migrate(orm);
    await orm.close();
  }
  return {
    url,
    async drop() {
      await admin.em.getConnection().execute(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// redis-server of the test's own

export interface OwnRedis {
  url: string;
  /** Sends a signal and waits for the process to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the process without ending it (SIGSTOP): its connections stay open and nothing is answered. */
  pause(): void;
  /** Lets a paused process go on (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port and folder (its append-only file brings the data back). */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

async function pingRedis(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.ping();
    await r.quit();
    return true;
  } catch {
    r.disconnect();
    return false;
  }
}

/**
 * A redis-server that writes every change to its append-only file before answering (`appendfsync always`);
 * with `replicaOf`, a replica of the server on that port of 127.0.0.1 (outside any cluster).
 */
export async function startOwnRedis(opts: { replicaOf?: number } = {}): Promise<OwnRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'us-fault-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  const launch = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'];
    if (opts.replicaOf) args.push('--replicaof', '127.0.0.1', String(opts.replicaOf));
    proc = spawn('redis-server', [...args, '--appendfsync', 'always', '--dir', dir], { stdio: 'ignore' });
    if (!(await waitFor(() => pingRedis(url), 10_000))) throw new Error('redis-server did not start');
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      // A paused process acts on no other signal (SIGKILL ends it as it is, without letting it run first).
      if (signal !== 'SIGKILL') p.kill('SIGCONT');
      p.kill(signal);
    });
  };
  await launch();
  return {
    url,
    kill,
    pause: () => proc?.kill('SIGSTOP'),
    resume: () => proc?.kill('SIGCONT'),
    start: launch,
    async remove() {
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Redis Cluster of the test's own

/**
 * A Redis Cluster of the test's own (three masters, a replica each: `npm run redis:cluster`'s), whose nodes count
 * one another failed after a second without an answer, so a replica takes over a stopped master within seconds.
 */
export function startOwnRedisCluster(): Promise<RedisCluster> {
  return startRedisCluster({ nodeTimeoutMs: 1000 });
}

// ---------------------------------------------------------------------------------------------------
// A stream of page reports

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export interface ReportSite {
  publicKey: string;
  hostname: string;
}

export interface Answer {
  /** When the answer arrived (ms). */
  at: number;
  /** When the report was sent (ms): an answer arriving after a change may have been decided before it. */
  sent: number;
  /** HTTP status, or 0 when no whole answer came (refused, reset, cut mid-answer). */
  status: number;
  /** The network error's code when status is 0. */
  error?: string;
  /** The problem's title of an answer other than 202 (what went wrong, for a failing test's message). */
  title?: string;
}

export interface StreamLog {
  /** Ids answered 202 (the ones that must be stored). */
  acked: string[];
  answers: Answer[];
  /** Answers that break the promise: a 5xx other than 503 with Retry-After, a refusal not in problem+json. */
  violations: string[];
}

/**
 * Counts answers by status (0 = no answer) that arrived from `from` (ms) until before `to`; `by: 'sent'` counts
 * the reports sent in that window instead.
 */
export function tally(log: StreamLog, from = 0, to = Number.POSITIVE_INFINITY, by: 'at' | 'sent' = 'at'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of log.answers) {
    if (a[by] < from || a[by] >= to) continue;
    const key = a.status ? String(a.status) : `no answer (${a.error})`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

const errorCode = (err: unknown): string => {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? String(err);
};

/** Posts one page report; never throws. */
export async function sendReport(baseUrl: string, site: ReportSite, id: string, log: StreamLog): Promise<Answer> {
  const body = JSON.stringify({
    t: 'pv',
    k: site.publicKey,
    u: `https://${site.hostname}/p`,
    id,
    r: '',
    w: 1200,
    l: 'en',
    z: 'UTC',
    n: 1,
  });
  let answer: Answer;
  const sent = Date.now();
  try {
    const res = await fetch(`${baseUrl}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': UA },
      body,
    });
    const text = await res.text(); // the answer counts only once it has arrived whole
    answer = { at: Date.now(), sent, status: res.status };
    if (res.status !== 202) answer.title = /"title":"([^"]*)"/.exec(text)?.[1];
    if (res.status === 202) log.acked.push(id);
    else {
      const type = res.headers.get('content-type') ?? '';
      if (!type.startsWith('application/problem+json')) log.violations.push(`${res.status} as ${type}: ${text.slice(0, 200)}`);
      if (res.status >= 500 && (res.status !== 503 || !res.headers.get('retry-after')))
        log.violations.push(`${res.status} (retry-after ${res.headers.get('retry-after')}): ${text.slice(0, 200)}`);
    }
  } catch (err) {
    answer = { at: Date.now(), sent, status: 0, error: errorCode(err) };
  }
  log.answers.push(answer);
  return answer;
}

let idSeq = 0;
const reportId = () => `f${process.pid.toString(36)}${(++idSeq).toString(36)}${randomBytes(4).toString('hex')}`;

/**
 * `loops` concurrent senders, each posting page reports one after the other to `baseUrl()` until stopped
 * (or, with `untilRefused`, until its connection is refused).
 */
export function streamReports(opts: {
  baseUrl: () => string;
  site: ReportSite;
  loops?: number;
  /** Pause between two reports of one loop. Default 2 ms (the machine is shared). */
  pauseMs?: number;
  untilRefused?: boolean;
}) {
  const log: StreamLog = { acked: [], answers: [], violations: [] };
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const a = await sendReport(opts.baseUrl(), opts.site, reportId(), log);
      if (opts.untilRefused && a.error === 'ECONNREFUSED') return;
      await sleep(opts.pauseMs ?? 2);
    }
  };
  const done = Promise.all(Array.from({ length: opts.loops ?? 4 }, loop)).then(() => log);
  return {
    log,
    /** Resolves when every loop has ended on its own (`untilRefused`). */
    done,
    async stop(): Promise<StreamLog> {
      stopped = true;
      return done;
    },
  };
}

/**
 * How many answers of `status` came from `from` (ms) until now, this millisecond excluded: a window the test
 * closes later (`tally(log, from, closedAt)` with `closedAt` read after the wait) then holds every answer the
 * wait counted, even one logged in the very millisecond the window closes.
 */
export const answered = (log: StreamLog, status: number, from = 0) => tally(log, from, Date.now())[String(status)] ?? 0;

/**
 * Waits while `stream` runs until `check` passes (it throws until then, as vi.waitFor's callback does). If it
 * never does, the stream is stopped before the failure is thrown, so no sender outlives the test.
 */
export async function waitWhileStreaming(
  stream: { stop(): Promise<StreamLog> },
  check: () => unknown,
  timeoutMs = 20_000,
): Promise<void> {
  try {
    await vi.waitFor(check, { timeout: timeoutMs, interval: 50 });
  } catch (err) {
    await stream.stop();
    throw err;
  }
}

/**
 * Waits until a report acknowledged after the first `from` of `log.acked` is stored: reports flow all the way
 * into PostgreSQL (a flush has run since).
 */
export function waitUntilFlowing(
  orm: Orm,
  siteId: string,
  stream: { log: StreamLog; stop(): Promise<StreamLog> },
  from: number,
): Promise<void> {
  return waitWhileStreaming(stream, async () => {
    const stored = await storedCounts(orm, siteId);
    expect(stream.log.acked.slice(from).some((id) => stored.has(id))).toBe(true);
  });
}

/** A logger that keeps every line for a test to wait on, and prints nothing. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m, err) => lines.push(`error ${m}${err === undefined ? '' : ` (${String(err)})`}`),
  };
}

/** How many times each of `ids` is stored in `pageviews` (ids missing from the map are not stored). */
export async function storedCounts(orm: Orm, siteId: string): Promise<Map<string, number>> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ pageview_id: string; n: string }[]>(
      'select pageview_id, count(*) as n from pageviews where site_id = ? group by pageview_id',
      [siteId],
      'all',
    );
  return new Map(rows.map((r) => [r.pageview_id, Number(r.n)]));
}

/** The acknowledged ids not stored yet (waiting up to `ms` for the flusher to store them all). */
export async function waitUntilStored(orm: Orm, siteId: string, acked: string[], ms: number): Promise<string[]> {
  let missing = acked;
  await waitFor(async () => {
    const stored = await storedCounts(orm, siteId);
    missing = acked.filter((id) => !stored.has(id));
    return missing.length === 0;
  }, ms);
  return missing;
}

/** Whether a process runs (an exited one its parent has not reaped yet, state Z, runs no more). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------
// The real server as a child process

const ROOT = path.resolve(import.meta.dirname, '../../../..');

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with its exit code (or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** tsx's loader by its path: a server started in another folder could not find it by name. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * What production refuses to start without (docs/configuration.md, "Start-up checks"), for a server reached
 * on this machine only. Added under the test's own variables when it runs NODE_ENV=production.
 */
const PRODUCTION_HERE = {
  APP_SECRET: randomBytes(32).toString('hex'),
  BASE_URL: 'http://127.0.0.1',
  ALLOW_HTTP_LOCALHOST: 'true',
};

/**
 * `apps/api/src/main.ts` as `npm start` runs it, with only `env` (and PATH, HOME) for its environment, in
 * `cwd`: by default an empty folder of its own, so a developer's `.env` in the repository never reaches it.
 * `args` runs something else with this Node instead (the production build's start script).
 */
export function launchServer(
  env: Record<string, string>,
  opts: { cwd?: string; noProductionDefaults?: boolean; args?: string[] } = {},
) {
  const production = env.NODE_ENV === 'production' && !opts.noProductionDefaults ? PRODUCTION_HERE : {};
  const main = path.join(ROOT, 'apps/api/src/main.ts');
  const ownCwd = opts.cwd ? undefined : mkdtempSync(path.join(tmpdir(), 'us-server-cwd-'));
  const proc = spawn(process.execPath, opts.args ?? [...API_NODE_FLAGS, ...API_SOURCE_FLAGS, '--import', TSX, main], {
    cwd: opts.cwd ?? ownCwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      ...API_PROCESS_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      ...production,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => {
      if (ownCwd) rmSync(ownCwd, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  return { proc, output: () => out, exited };
}

/** Starts the server (`launchServer`) and waits for its "listening on" line. */
export async function spawnServer(
  env: Record<string, string>,
  ms = 60_000,
  how: { args?: string[]; cwd?: string } = {},
): Promise<ServerProcess> {
  const { proc, output, exited } = launchServer(env, how);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within ${ms} ms:\n${output()}`)), ms);
    const onData = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(output());
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${output()}`));
    });
  });
  return { url, proc, output, exited };
}
