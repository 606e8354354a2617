// `npm run redis:cluster`: a local Redis Cluster on 127.0.0.1 (three masters, one replica each), for trying
// REDIS_CLUSTER_NODES by hand; the test harness starts the same one through `startRedisCluster`. Needs Debian's
// `redis-server` (7.0 or newer), which brings `redis-cli` (package redis-tools). Nothing is kept on disk: no
// snapshots, no append-only file, and the folder of the nodes' cluster files is removed when it stops.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

export interface RedisClusterOptions {
  /** Masters (at least 3: a cluster needs a majority of masters to agree that one has failed). */
  masters?: number;
  /** Replicas per master: with one, a stopped master's replica is promoted in its place. */
  replicas?: number;
  /** First port; the nodes take the ports after it, their cluster bus the same ports + 10000. Default: free ports. */
  port?: number;
  /** Folder of the nodes' files (emptied first); default a new temporary folder. Removed by `stop()`. */
  dir?: string;
  /** How long a node may not answer before the others count it as failed (Redis's `cluster-node-timeout`). */
  nodeTimeoutMs?: number;
}

export interface RedisCluster {
  /** Every node as `127.0.0.1:port`, masters first (as created; a failover changes who is master). */
  nodes: string[];
  ports: number[];
  dir: string;
  /** The master serving `key`'s slot now, by port, as the cluster itself says. */
  masterOf(key: string): Promise<number>;
  /** The node answering as replica of the master on `port`, by port. */
  replicaOf(port: number): Promise<number | undefined>;
  /** Stops one node (SIGKILL: a crash, by default) and waits for its process to be gone. */
  stopNode(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped node again with its cluster file: it rejoins (a master that was failed over, as a replica). */
  startNode(port: number): Promise<void>;
  /** Stops a node without ending it (SIGSTOP): its connections stay open and nothing is answered. */
  pauseNode(port: number): void;
  /** Lets a paused node go on (SIGCONT). */
  resumeNode(port: number): void;
  /** Waits until every slot is served by a running master and every running node says `cluster_state:ok`. */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  /** The cluster's own list of nodes (`CLUSTER NODES`), as asked of a running node. */
  describe(): Promise<string>;
  /** Stops every node (SIGTERM: they shut down without saving) and removes their folder. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const SLOTS = 16384;

/**
 * `n` distinct free TCP ports on 127.0.0.1: all held open until every one is picked, so none is given twice
 * (another process could still take one before its node does).
 */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.on('error', reject);
          server.listen(0, HOST, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** One `redis-cli` call on a node; its answer as text. */
function cli(port: number, args: string[], timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-h', HOST, '-p', String(port), ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`redis-cli -p ${port} ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/**
 * Polls `check` every 100 ms until it answers true; throws `what` once `timeoutMs` has passed. A check that
 * throws counts as "not yet", unless `fatal`: then its error is thrown at once.
 */
async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, fatal = false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = await check();
    } catch (err) {
      if (fatal && err instanceof Error && err.message.startsWith('redis cluster:')) throw err;
    }
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis cluster: ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface NodeLine {
  port: number;
  master: boolean;
  failed: boolean;
  /** The master's node id, for a replica. */
  of: string;
  id: string;
  slots: [number, number][];
}

/** `CLUSTER NODES`: one line per node, `<id> <ip:port@bus> <flags> <master id> … <slot ranges>`. */
function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', address = '', flags = '', of = '', , , , , ...ranges] = line.trim().split(' ');
      const port = Number(address.split('@')[0]?.split(':').pop());
      const slots = ranges
        .filter((r) => !r.startsWith('['))
        .map((r): [number, number] => {
          const [from, to] = r.split('-').map(Number) as [number, number | undefined];
          return [from, to ?? from];
        });
      const flagList = flags.split(',');
      return {
        id,
        port,
        of,
        slots,
        master: flagList.includes('master'),
        failed: flagList.some((f) => f === 'fail' || f === 'fail?'),
      };
    });
}

export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicas ?? 1;
  if (masters < 3) throw new Error('redis cluster: at least 3 masters');
  const count = masters * (replicas + 1);
  const dir = opts.dir ?? mkdtempSync(path.join(tmpdir(), 'us-redis-cluster-'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

  // Each node has a client port and a cluster bus port (given explicitly, so free ports work for both).
  const picked = opts.port ? [] : await freePorts(2 * count);
  const ports = Array.from({ length: count }, (_, i) => (opts.port ? opts.port + i : (picked[i] as number)));
  const busPorts = Array.from({ length: count }, (_, i) => (opts.port ? opts.port + i + 10000 : (picked[count + i] as number)));
  const procs = new Map<number, ChildProcess>();
  const paused = new Set<number>();

  const launch = async (i: number) => {
    const port = ports[i] as number;
    const nodeDir = path.join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    const args = [
      ...['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', nodeDir],
      ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPorts[i])],
      ...['--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 5000)],
      // A replica's first copy is sent at once (Redis waits 5 s by default for more replicas to ask together).
      ...['--repl-diskless-sync-delay', '0'],
      // The other masters go on serving their slots while one has no master running (until its replica takes
      // over, or for good without replicas): one stopped master costs its share of keys only.
      ...['--cluster-require-full-coverage', 'no'],
      ...['--logfile', path.join(nodeDir, 'redis.log')],
    ];
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    procs.set(port, proc);
    // Its own answer (a process of another's on that port would answer too), until it has died trying.
    await until(
      `node ${port} did not answer`,
      async () => {
        if (proc.exitCode !== null || proc.signalCode !== null)
          throw new Error(`redis cluster: node ${port} exited (see ${nodeDir}/redis.log)`);
        return (await cli(port, ['info', 'server'], 1000)).includes(`process_id:${proc.pid}\r`);
      },
      // Generous: a loaded machine (a whole test run starting its databases at once) takes seconds to start one.
      30_000,
      true,
    );
  };
  const stopNode = async (port: number, signal: NodeJS.Signals = 'SIGKILL') => {
    const p = procs.get(port);
    procs.delete(port);
    paused.delete(port);
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGCONT'); // a paused node would never act on the signal
      p.kill(signal);
    });
  };
  const running = () => [...procs.keys()];
  const up = (port: number) => procs.has(port) && !paused.has(port);
  /** A node to ask: running and not paused. */
  const answering = () => running().find(up) as number;
  const nodesNow = async () => parseNodes(await cli(answering(), ['cluster', 'nodes']));

  const serving = async () => {
    for (const port of running().filter(up)) {
      const info = await cli(port, ['cluster', 'info'], 1000);
      if (!/cluster_state:ok/.test(info)) return false;
    }
    const lines = await nodesNow();
    const covered = lines
      .filter((n) => n.master && !n.failed && up(n.port))
      .reduce((sum, n) => sum + n.slots.reduce((s, [a, b]) => s + b - a + 1, 0), 0);
    // Replicas of running masters have caught up (a failover right after start would otherwise find none ready).
    for (const replica of lines.filter((n) => !n.master && !n.failed && up(n.port))) {
      const master = lines.find((m) => m.id === replica.of);
      if (master && up(master.port) && !/master_link_status:up/.test(await cli(replica.port, ['info', 'replication'])))
        return false;
    }
    return covered === SLOTS;
  };

  const cluster: RedisCluster = {
    nodes: ports.map((p) => `${HOST}:${p}`),
    ports,
    dir,
    async masterOf(key) {
      const slot = Number((await cli(answering(), ['cluster', 'keyslot', key])).trim());
      const owner = (await nodesNow()).find((n) => n.master && n.slots.some(([a, b]) => slot >= a && slot <= b));
      if (!owner) throw new Error(`redis cluster: no master serves slot ${slot}`);
      return owner.port;
    },
    async replicaOf(port) {
      const lines = await nodesNow();
      const master = lines.find((n) => n.port === port);
      return lines.find((n) => !n.master && n.of === master?.id)?.port;
    },
    stopNode,
    async startNode(port) {
      await launch(ports.indexOf(port));
    },
    pauseNode(port) {
      paused.add(port);
      procs.get(port)?.kill('SIGSTOP');
    },
    resumeNode(port) {
      paused.delete(port);
      procs.get(port)?.kill('SIGCONT');
    },
    waitUntilServing: (timeoutMs = 30_000) => until('not every slot was served', serving, timeoutMs),
    describe: () => cli(answering(), ['cluster', 'nodes']),
    async stop() {
      await Promise.all(running().map((port) => stopNode(port, 'SIGTERM')));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await Promise.all(ports.map((_, i) => launch(i)));
    // redis-cli makes the first `masters` nodes masters and gives each of the others to one of them.
    const create = ['--cluster', 'create', ...cluster.nodes, '--cluster-replicas', String(replicas), '--cluster-yes'];
    await cli(ports[0] as number, create, 60_000);
    await cluster.waitUntilServing(60_000);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** The command line: starts a cluster, prints its nodes and the setting, stops it on Ctrl-C (or SIGTERM). */
async function main() {
  const { values } = parseArgs({
    options: {
      masters: { type: 'string', default: '3' },
      replicas: { type: 'string', default: '1' },
      port: { type: 'string' },
    },
  });
  const dir = path.resolve(process.env.DATA_DIR ?? '.data', 'redis-cluster');
  const cluster = await startRedisCluster({
    masters: Number(values.masters),
    replicas: Number(values.replicas),
    port: values.port ? Number(values.port) : undefined,
    dir,
  });
  console.log(`Redis Cluster ready (files in ${dir}):\n${(await cluster.describe()).trim()}\n`);
  console.log(`REDIS_CLUSTER_NODES=${cluster.nodes.join(',')}`);
  console.log('Ctrl-C stops it.');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    console.log('Redis Cluster stopped.');
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
