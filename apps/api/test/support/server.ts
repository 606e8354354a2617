import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrm, Membership, User, Workspace } from '@us/db';
import type { Plan, Role, Scope } from '@us/shared';
import supertest from 'supertest';
import { describe, inject } from 'vitest';
import { MemoryIngestBuffer, RedisIngestBuffer, type StartIngestArgs } from '../../src/analytics/ingest/index.ts';
import { createServer } from '../../src/app.ts';
import type { Deps } from '../../src/core/deps.ts';
import { deriveUrls, parseEnv } from '../../src/core/env.ts';
import { tagKeyOf } from '../../src/core/hot/address-tag.ts';
import { MemoryStore, RedisStore, type RedisTarget } from '../../src/core/hot/index.ts';
import type { HotStore } from '../../src/core/hot/store.ts';
import type { LogDestination } from '../../src/core/logger.ts';
import { hashPassword } from '../../src/core/security/passwords.ts';
import { randomToken } from '../../src/core/security/tokens.ts';
import type { ProxyLimits } from '../../src/faces/proxy/limits.ts';
import type { DownloadLimits } from '../../src/features/export/limits.ts';
import { issueToken } from '../../src/features/tokens/issue.ts';
import { makeDeps, statsOrmFor } from '../../src/make-deps.ts';
import { startSmtpCapture } from './smtp.ts';

export type HotKind = 'memory' | 'redis' | 'redis-cluster';

/**
 * Hot-state kinds this machine can test: memory always, Redis when a redis-server runs for the suite, and with
 * `cluster` the run's Redis Cluster too (suites that hold the shared store's contract opt in; the others need not
 * run a third time).
 */
export function hotKinds(opts: { cluster?: boolean } = {}): HotKind[] {
  const kinds: HotKind[] = ['memory'];
  if (inject('redisUrl')) kinds.push('redis');
  if (opts.cluster && inject('redisClusterNodes')) kinds.push('redis-cluster');
  return kinds;
}

/** The kinds several nodes can share (a redis-server, the Redis Cluster) this machine can test. */
export function sharedHotKinds(): ('redis' | 'redis-cluster')[] {
  return hotKinds({ cluster: true }).filter((k) => k !== 'memory');
}

/**
 * `describe.each` over `sharedHotKinds()`: one suite per kind, or a skipped one on a machine without
 * redis-server (a file without a suite would fail).
 */
export function describeEachShared() {
  const kinds = sharedHotKinds();
  return describe.skipIf(!kinds.length).each(kinds.length ? kinds : (['redis'] as const));
}

/** The kind integration suites run on: Redis when present (CI), memory otherwise. */
export function defaultHotKind(): HotKind {
  return inject('redisUrl') ? 'redis' : 'memory';
}

/** The run's redis-server or Redis Cluster, as the server's settings would name it. */
export function redisTargetOf(kind: 'redis' | 'redis-cluster'): RedisTarget {
  const target = kind === 'redis' ? inject('redisUrl') : inject('redisClusterNodes');
  if (!target) throw new Error(`no ${kind === 'redis' ? 'redis-server' : 'Redis Cluster'} for this run`);
  return typeof target === 'string' ? target : { cluster: target };
}

/** A hot store of `kind`: on `redis` (a Redis of the test's own) or else the run's own server or cluster. */
export function makeHotStore(kind: HotKind, redis?: RedisTarget, prefix?: string, tagKey?: string): HotStore {
  if (kind === 'memory') return new MemoryStore(Date.now, tagKey);
  return new RedisStore(redis ?? redisTargetOf(kind), prefix, tagKey);
}

/**
 * A whole server on 127.0.0.1 with the suite's PostgreSQL, the chosen hot state and a real SMTP
 * server capturing mail (unless `mail: 'outbox'`). `sleeps` records every throttle delay instead of waiting it out.
 * `databaseUrl` and `redis` point it at a PostgreSQL or a redis-server or Redis Cluster of the test's own (fault
 * tests stop those); `redis` means Redis for both the hot state and the write buffer. `hot: 'redis-cluster'`
 * puts both on the run's cluster.
 */
export async function startTestServer(
  opts: {
    hot?: HotKind;
    env?: Record<string, string>;
    mail?: 'smtp' | 'outbox';
    ingest?: Partial<StartIngestArgs>;
    databaseUrl?: string;
    redis?: RedisTarget;
    /** Hot-state key prefix: two servers given the same one act as two nodes of one deployment. */
    hotPrefix?: string;
    /** Redis key of the write buffer: two servers given the same one share it, as nodes of one deployment do. */
    ingestKey?: string;
    /** APP_SECRET (default: a new one): nodes of one deployment share it to read each other's sealed records. */
    appSecret?: string;
    /** Proxy mode's timeouts and limits, shorter for a test (`faces/proxy/limits.ts`). */
    proxyLimits?: Partial<ProxyLimits>;
    /** Export downloads' idle and per-file time limits, shorter for a test (`features/export/limits.ts`). */
    downloadLimits?: Partial<DownloadLimits> & { atOnceOnNode?: number };
    /** The edge SDK package folder served at /sdk/edge@<version>/ (default: the workspace's). */
    edgeSdkDir?: string;
    /** Where the server's log lines go (`captureLogs` in ./logs.ts); standard output otherwise. */
    logs?: LogDestination;
    /** The built dashboard's folder (default apps/web/dist): a test's own stand-in when it needs no real build. */
    webDist?: string;
  } = {},
) {
  const smtp = await startSmtpCapture();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-api-'));
  // `mail: 'outbox'` runs as a server without SMTP_URL: mail goes to the log and DATA_DIR/outbox.ndjson.
  const smtpUrl = opts.mail === 'outbox' ? undefined : smtp.url;
  const env = parseEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    SMTP_URL: smtpUrl,
    // Third parties only through the stand-ins a test starts: by default nothing answers (port 9, discard).
    SEARCH_GOOGLE_API_URL: 'http://127.0.0.1:9/google',
    SEARCH_BING_API_URL: 'http://127.0.0.1:9/bing',
    STRIPE_API_URL: 'http://127.0.0.1:9',
    // Proxy-mode origins are stand-ins on 127.0.0.1 too (the SSRF attack test turns this off).
    PROXY_PRIVATE_ORIGINS: 'true',
    ...opts.env,
  });
  const databaseUrl = opts.databaseUrl ?? inject('databaseUrl');
  const orm = await createOrm(databaseUrl, { poolMax: 4 });
  const statsOrm = await statsOrmFor(databaseUrl, env);
  const hotKind: HotKind = opts.redis
    ? typeof opts.redis === 'string'
      ? 'redis'
      : 'redis-cluster'
    : (opts.hot ?? defaultHotKind());
  const redis = hotKind === 'memory' ? undefined : (opts.redis ?? redisTargetOf(hotKind));
  // Its own keys in the shared redis-server too: budgets, throttles and caches of other suites' servers
  // (the same client address, 127.0.0.1, everywhere) must not count against this one's.
  const appSecret = opts.appSecret ?? randomToken(48);
  const hot = makeHotStore(hotKind, redis, opts.hotPrefix ?? `us:test-${randomUUID()}:`, tagKeyOf(appSecret));
  // Each server queues under its own Redis keys: servers of other suites share the redis-server, and a
  // flusher taking another suite's rows would make that suite's "flush, then read" racy.
  const maxRows = opts.ingest?.maxBufferRows ?? env.INGEST_BUFFER_MAX_ROWS;
  const buffer = redis
    ? new RedisIngestBuffer(redis, opts.ingestKey ?? `ingest-${randomUUID()}`, maxRows)
    : new MemoryIngestBuffer(maxRows);
  const sleeps: number[] = [];
  // As the server builds them; allowances are counted as the server does, and Free notices go out with
  // the harness's captured mail (see `mailsTo`).
  const deps = await makeDeps({
    env,
    urls: deriveUrls(env, { host: '127.0.0.1', port: 0 }),
    orm,
    statsOrm,
    hot,
    appSecret,
    ingest: { buffer, ...opts.ingest },
    logDestination: opts.logs,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const server = createServer(deps, {
    proxyLimits: opts.proxyLimits,
    downloadLimits: opts.downloadLimits,
    edgeSdkDir: opts.edgeSdkDir,
    ...(opts.webDist ? { webDist: opts.webDist } : {}),
  }).listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const port = (server.address() as AddressInfo).port;
  deps.urls = deriveUrls(env, { host: '127.0.0.1', port });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    deps,
    smtp,
    sleeps,
    /** The server's own metrics registry (pools, backlog, hot store), for a METRICS_PORT server of a test's own. */
    metrics: server.metrics,
    request: supertest(url),
    async close() {
      // Connections still open end now: close() alone waits for every one of them, an answer still
      // streaming (a download, an MCP stream) included, and a suite's teardown then ran into its timeout.
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await deps.ingest.stop(undefined, server.flushProxyRecords);
      await buffer.close();
      await statsOrm.close();
      await orm.close();
      await hot.close();
      deps.mailer.close();
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type TestServer = Awaited<ReturnType<typeof startTestServer>>;

let seq = 0;
/** A unique address per call, so suites run in parallel on one database without clashing. */
export function uniqueEmail(tag = 'user') {
  seq += 1;
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${seq}@example.test`;
}

export const GOOD_PASSWORD = 'violet-kettle-parade-41';

export interface UserOptions {
  email?: string;
  password?: string;
  /** false: the e-mail address is not verified yet. */
  verified?: boolean;
  workspaceName?: string;
  /** The workspace's plan (default Free). */
  plan?: Plan;
  role?: Role;
}

/** Factory: a user (verified unless told otherwise) who owns a new workspace, straight through the ORM. */
export async function createUser(deps: Deps, opts: UserOptions = {}) {
  const em = deps.orm.em.fork();
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? GOOD_PASSWORD;
  const user = em.create(User, {
    email,
    passwordHash: await hashPassword(password),
    emailVerifiedAt: opts.verified === false ? null : new Date(),
  });
  const workspace = em.create(Workspace, { name: opts.workspaceName ?? 'Test workspace', plan: opts.plan ?? 'Free' });
  em.create(Membership, { workspace, user, role: opts.role ?? 'owner' });
  await em.flush();
  return { user, workspace, email, password };
}

/** Signs in over REST and returns the Cookie header value to send on later requests. */
export async function signIn(t: TestServer, email: string, password = GOOD_PASSWORD): Promise<string> {
  const res = await t.request.post('/v1/auth/login').send({ email, password }).expect(200);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('us_session='));
  if (!cookie) throw new Error('no session cookie');
  return cookie.split(';')[0] as string;
}

/** Factory: a new owner (as `createUser`) signed in over REST: `cookie` to send. */
export async function signedInOwner(t: TestServer, opts: UserOptions = {}) {
  const u = await createUser(t.deps, opts);
  return { ...u, cookie: await signIn(t, u.email) };
}

/** Factory: a new owner (as `createUser`) with a token of `scopes` for the workspace: `token` and its `auth` header. */
export async function ownerWithToken(deps: Deps, scopes: Scope[], opts: UserOptions = {}) {
  const u = await createUser(deps, opts);
  const { token } = await createToken(deps, { userId: u.user.id, workspaceId: u.workspace.id, scopes });
  return { ...u, token, auth: `Bearer ${token}` };
}

/** Factory: a new person (owner of a workspace of their own) who is also `role` in `workspaceId`, signed in. */
export async function joinAs(t: TestServer, workspaceId: string, role: Role) {
  const u = await createUser(t.deps);
  const em = t.deps.orm.em.fork();
  em.create(Membership, { workspace: workspaceId, user: u.user.id, role });
  await em.flush();
  return { ...u, cookie: await signIn(t, u.email) };
}

/** Factory: an API token through the service (its REST routes arrive with the management API). */
export async function createToken(
  deps: Deps,
  opts: {
    userId: string;
    workspaceId: string;
    scopes: Scope[];
    siteIds?: string[] | null;
    expiresAt?: Date | null;
    name?: string;
  },
) {
  const em = deps.orm.em.fork();
  const { secret, row } = await issueToken(em, {
    workspaceId: opts.workspaceId,
    createdBy: opts.userId,
    name: opts.name ?? 'test token',
    scopes: opts.scopes,
    siteIds: opts.siteIds ?? null,
    expiresAt: opts.expiresAt ?? null,
  });
  return { token: secret, id: row.id };
}
