// A local Citus cluster: a coordinator and workers, each its own PostgreSQL 15 cluster on a 127.0.0.1 port,
// with `shared_preload_libraries = 'citus'`, the database and the extension on every node and the workers
// registered with the coordinator. Used by `npm run citus` (scripts/citus/run.ts) and the Citus test lane
// (apps/api/test/support/global-setup.ts). Citus itself is built and installed by scripts/citus/build.sh.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';

export const CITUS_VERSION = '13.2.2';
export const PG_MAJOR = 15;
const BIN = `/usr/lib/postgresql/${PG_MAJOR}/bin`;
const BUILD_SCRIPT = path.join(import.meta.dirname, 'build.sh');
const SETUP_SCRIPT = path.resolve(import.meta.dirname, '../../infra/citus/setup.sh');

export interface CitusNode {
  name: string;
  port: number;
  dir: string;
}

export interface CitusCluster {
  /** The coordinator's URL: what DATABASE_URL is set to. */
  url: string;
  coordinator: CitusNode;
  workers: CitusNode[];
  /** A worker stopped (`pg_ctl stop -m fast`) and started again, for fault tests. */
  stopNode(node: CitusNode): void;
  startNode(node: CitusNode): void;
  /** Stops every node (fast shutdown); `remove` also deletes their folders. */
  stop(opts?: { remove?: boolean }): void;
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL program as the `postgres` user when we are root (initdb and postgres refuse root). */
function pgRun(program: string, args: string[], opts: { quiet?: boolean } = {}) {
  const [cmd, argv] = asRoot()
    ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, program), ...args]]
    : [path.join(BIN, program), args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
  if (!opts.quiet && r.stdout.trim()) process.stderr.write(r.stdout);
  return r.stdout;
}

/** Builds and installs Citus once per machine (skipped when installed); throws with what to do otherwise. */
export function ensureCitusInstalled() {
  execFileSync('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'inherit', 'inherit'] });
}

export function citusInstalled(): boolean {
  const pgConfig = path.join(BIN, 'pg_config');
  if (!existsSync(pgConfig)) return false;
  const lib = execFileSync(pgConfig, ['--pkglibdir'], { encoding: 'utf8' }).trim();
  return existsSync(path.join(lib, `citus-${CITUS_VERSION}.installed`));
}

function initNode(node: CitusNode, opts: { citus: boolean } = { citus: true }) {
  if (existsSync(path.join(node.dir, 'PG_VERSION'))) return;
  mkdirSync(node.dir, { recursive: true });
  if (asRoot()) execFileSync('chown', ['postgres:postgres', node.dir]);
  chmodSync(node.dir, 0o700);
  pgRun('initdb', ['-D', node.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], { quiet: true });
  const conf = path.join(node.dir, 'postgresql.conf');
  writeFileSync(
    conf,
    `${readFileSync(conf, 'utf8')}
# Set by scripts/citus/cluster.ts
${opts.citus ? "shared_preload_libraries = 'citus'" : '# without Citus: a plain PostgreSQL node'}
listen_addresses = '127.0.0.1'
port = ${node.port}
unix_socket_directories = '${node.dir}'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
max_prepared_transactions = 200
${
  opts.citus
    ? `citus.max_adaptive_executor_pool_size = 8
# Fewer shards than the default 32: two workers on one machine, and every day partition of a raw table is a
# distributed table of its own.
citus.shard_count = 8`
    : ''
}
log_min_messages = warning
`,
  );
  // Only 127.0.0.1 listens: trust there is what a local development cluster needs (no passwords to hand out).
  writeFileSync(path.join(node.dir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  if (asRoot()) execFileSync('chown', ['-R', 'postgres:postgres', node.dir]);
}

/** Starts a node's PostgreSQL (waits until it accepts connections); a running node is left as it is. */
export function startNode(node: CitusNode) {
  if (nodeRunning(node)) return;
  startNodeProcess(node);
}

/** `pg_ctl status`: a postmaster.pid left by a node that was killed does not count as running. */
function nodeRunning(node: CitusNode): boolean {
  if (!existsSync(path.join(node.dir, 'postmaster.pid'))) return false;
  const [cmd, argv] = asRoot()
    ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, 'pg_ctl'), 'status', '-D', node.dir]]
    : [path.join(BIN, 'pg_ctl'), ['status', '-D', node.dir]];
  return spawnSync(cmd, argv, { stdio: 'ignore' }).status === 0;
}

function startNodeProcess(node: CitusNode) {
  pgRun('pg_ctl', ['-D', node.dir, '-l', path.join(node.dir, 'server.log'), '-w', '-t', '60', 'start'], { quiet: true });
}

/** Stops a node's PostgreSQL (fast shutdown: sessions are cut, as when a machine goes). */
export function stopNode(node: CitusNode) {
  stopNodeProcess(node);
}

function stopNodeProcess(node: CitusNode) {
  if (!nodeRunning(node)) return;
  pgRun('pg_ctl', ['-D', node.dir, '-m', 'fast', '-w', '-t', '60', 'stop'], { quiet: true });
}

async function sql(port: number, database: string, statement: string) {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Where each node of a cluster under `dataDir/citus` lives and listens: the coordinator on `basePort`, then the workers. */
export function citusNodes(opts: { dataDir: string; basePort: number; workers?: number }): {
  coordinator: CitusNode;
  workers: CitusNode[];
} {
  const root = path.resolve(opts.dataDir, 'citus');
  const node = (name: string, i: number): CitusNode => ({ name, port: opts.basePort + i, dir: path.join(root, name) });
  return {
    coordinator: node('coordinator', 0),
    workers: Array.from({ length: opts.workers ?? 2 }, (_, i) => node(`worker${i + 1}`, i + 1)),
  };
}

/**
 * Starts (initialising when new) a coordinator and `workers` workers under `dataDir/citus`, on `basePort`
 * and the ports after it, creates `database` with the citus extension on each and registers the workers.
 * Safe to call again on the same folder: existing clusters are started as they are.
 */
export async function startCitusCluster(opts: {
  dataDir: string;
  basePort: number;
  workers?: number;
  database?: string;
}): Promise<CitusCluster> {
  const database = opts.database ?? 'unseen';
  const root = path.resolve(opts.dataDir, 'citus');
  mkdirSync(root, { recursive: true });
  // The `postgres` user must reach the node folders.
  if (asRoot()) {
    for (let dir = root; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (dir === path.resolve(opts.dataDir, '..')) break;
      chmodSync(dir, 0o755);
    }
  }
  const { coordinator, workers } = citusNodes(opts);
  const all = [coordinator, ...workers];

  for (const n of all) initNode(n);
  for (const n of all) startNode(n);
  for (const n of all) {
    const exists = await sql(n.port, 'postgres', `select 1 from pg_database where datname = '${database}'`);
    if (!exists.rowCount) await sql(n.port, 'postgres', `create database ${database}`);
  }
  // The extension and the workers' registration: the steps compose.citus.yaml's citus-setup runs too.
  const hostPort = (n: CitusNode) => `127.0.0.1:${n.port}`;
  const setup = spawnSync('bash', [SETUP_SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PGHOST: '127.0.0.1',
      PGPORT: String(coordinator.port),
      PGUSER: 'postgres',
      PGDATABASE: database,
      COORDINATOR: hostPort(coordinator),
      WORKERS: workers.map(hostPort).join(' '),
    },
  });
  if (setup.status !== 0) throw new Error(`infra/citus/setup.sh failed: ${setup.stderr || setup.stdout}`);

  return {
    url: `postgres://postgres@127.0.0.1:${coordinator.port}/${database}`,
    coordinator,
    workers,
    stopNode: stopNodeProcess,
    startNode: startNodeProcess,
    stop({ remove = false } = {}) {
      for (const n of [...workers, coordinator]) {
        try {
          stopNodeProcess(n);
        } catch (err) {
          process.stderr.write(`${String(err)}\n`);
        }
      }
      if (remove) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A lone PostgreSQL node without Citus (`startPlainPostgres`). */
export interface PlainPostgres {
  url: string;
  node: CitusNode;
  /** Stops the node (fast shutdown); `remove` also deletes its folder. */
  stop(opts?: { remove?: boolean }): void;
}

/**
 * Starts (initialising when new) one PostgreSQL 15 cluster set up exactly as a Citus node (same binaries,
 * same settings) but without Citus loaded, under `dataDir/postgres15`, with `database` created: the
 * single-PostgreSQL baseline the scale-out bench measures a Citus cluster against.
 */
export async function startPlainPostgres(opts: { dataDir: string; port: number; database?: string }): Promise<PlainPostgres> {
  const database = opts.database ?? 'unseen';
  const node: CitusNode = { name: 'postgres15', port: opts.port, dir: path.resolve(opts.dataDir, 'postgres15') };
  reachableByPostgres(path.dirname(node.dir), opts.dataDir);
  initNode(node, { citus: false });
  startNodeProcess(node);
  const exists = await sql(node.port, 'postgres', `select 1 from pg_database where datname = '${database}'`);
  if (!exists.rowCount) await sql(node.port, 'postgres', `create database ${database}`);
  return {
    url: `postgres://postgres@127.0.0.1:${node.port}/${database}`,
    node,
    stop({ remove = false } = {}) {
      stopNodeProcess(node);
      if (remove) rmSync(node.dir, { recursive: true, force: true });
    },
  };
}

/** As root, the `postgres` user must reach `dir` (and the folders above it up to `dataDir`'s parent). */
function reachableByPostgres(dir: string, dataDir: string) {
  mkdirSync(dir, { recursive: true });
  if (!asRoot()) return;
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    if (d === path.resolve(dataDir, '..')) break;
    chmodSync(d, 0o755);
  }
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** The first of `count` free ports in a row on 127.0.0.1 (a cluster takes its coordinator's port and the ones after it). */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below Linux's ephemeral ports (32768 on), where other servers of a test run take theirs from the system
    // while the cluster starts: a port free now is not taken by them meanwhile.
    const base = 15_000 + Math.floor(Math.random() * 15_000);
    let ok = true;
    for (let p = base; p < base + count && ok; p++) ok = await portFree(p);
    if (ok) return base;
  }
  throw new Error(`no ${count} free ports in a row on 127.0.0.1`);
}
