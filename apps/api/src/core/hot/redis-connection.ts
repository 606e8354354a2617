import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Env } from '../env.ts';

/**
 * Where Redis is: one server's `redis://` URL, or some nodes of a Redis Cluster (`host:port` or `redis://` URLs;
 * the client learns the others from them). The hot store and the write buffer connect to the same one.
 */
export type RedisTarget = string | { cluster: readonly string[] };

export type RedisClient = Redis | Cluster;

/** What REDIS_URL and REDIS_CLUSTER_NODES ask for: a cluster's nodes, one server, or nothing (in-process state). */
export function redisTargetOf(env: Pick<Env, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>): RedisTarget | undefined {
  const list = (value: string) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (env.REDIS_CLUSTER_NODES) return { cluster: list(env.REDIS_CLUSTER_NODES) };
  if (!env.REDIS_URL) return undefined;
  const urls = list(env.REDIS_URL);
  return urls.length > 1 ? { cluster: urls } : urls[0];
}

export const isCluster = (target: RedisTarget): target is { cluster: readonly string[] } => typeof target !== 'string';

/**
 * How long a command waits for a cluster the client is connecting to: at start (its first connection learns every
 * node and slot), and once it was connected, as long as a node may take to answer.
 */
const CLUSTER_WAIT_MS = { starting: 10_000, again: 1000 };
/** The client's states in which it knows nodes to send a command to (`wait`: it connects on the first command). */
const SENDS = new Set(['connect', 'ready', 'wait', 'end']);

/**
 * A cluster client whose commands wait at most CLUSTER_WAIT_MS while it knows no node (connecting, or every node
 * gone), then fail as a lost Redis does. ioredis holds such commands in a queue of the cluster's own with no time
 * limit (`commandTimeout` starts once a node has the command): with every node down, calls without a deadline of
 * their own hung, the queue grew with every request, and all of it was sent at once when the nodes came back. While
 * the client knows nodes, commands go as before (one whose node is failing over waits on that node, with its
 * timeout).
 */
class BoundedCluster extends Cluster {
  private connected: Promise<void> | null = null;
  private wasConnected = false;

  override sendCommand(...args: Parameters<Cluster['sendCommand']>): ReturnType<Cluster['sendCommand']> {
    if (SENDS.has(this.status)) {
      if (this.status !== 'wait') this.wasConnected = true;
      return super.sendCommand(...args);
    }
    const [command] = args;
    this.connected ??= new Promise<void>((resolve) => {
      this.once('connect', () => {
        this.connected = null;
        resolve();
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.wasConnected ? CLUSTER_WAIT_MS.again : CLUSTER_WAIT_MS.starting);
    });
    void Promise.race([this.connected, waited]).then(() => {
      clearTimeout(timer);
      if (SENDS.has(this.status)) super.sendCommand(...args);
      else command.reject(new Error("Cluster isn't ready: no node of the Redis Cluster answers"));
    });
    return command.promise;
  }
}

interface ClusterNode {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls?: boolean;
}

function clusterNode(entry: string): ClusterNode {
  if (!/^rediss?:\/\//.test(entry)) {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(entry.slice(at + 1)) };
  }
  const url = new URL(entry);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    username: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    tls: url.protocol === 'rediss:',
  };
}

/**
 * A client of one server (`Redis`) or of a cluster (`Cluster`), with the same options: those of each node's
 * connection, except `keyPrefix` and `enableOfflineQueue`, which a cluster client takes for itself. The cluster
 * client sends each command to the master of its key's slot (reads too: a replica may lag), follows MOVED and ASK,
 * retries on CLUSTERDOWN and on a lost node every 100 ms (at most `maxRedirections` times, 16 by default), and
 * learns the new master when a replica has taken over: from those errors, and every 5 s (a master that hangs
 * sends no error that would tell it).
 */
export function connectRedis(target: RedisTarget, options: RedisOptions & { maxRedirections?: number }): RedisClient {
  const { keyPrefix, enableOfflineQueue, maxRedirections, ...nodeOptions } = options;
  if (!isCluster(target)) return new Redis(target, { keyPrefix, enableOfflineQueue, ...nodeOptions });
  const nodes = target.cluster.map(clusterNode);
  // The cluster client maps replies its own (legacy) way: a node's reply mapping is not passed on.
  const { replyMapping: _nodeMapping, ...clusterNodeOptions } = nodeOptions;
  // Credentials and TLS come from the first node given as a URL that has them: every node shares them.
  const auth = nodes.find((n) => n.username || n.password || n.tls);
  return new BoundedCluster(
    nodes.map(({ host, port }) => ({ host, port })),
    {
      keyPrefix,
      enableOfflineQueue,
      maxRedirections,
      scaleReads: 'master',
      slotsRefreshInterval: 5000,
      redisOptions: {
        ...clusterNodeOptions,
        username: auth?.username,
        password: auth?.password,
        ...(auth?.tls ? { tls: {} } : {}),
      },
    },
  );
}
